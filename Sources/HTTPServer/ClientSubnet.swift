import CMHDShim
import CSockets
internal import ConnectionSharing

#if canImport(Glibc)
    import Glibc
#endif

/// A client's IPv4 /24 or IPv6 /64 (see `ConnectionSharing.ClientSubnet`, which the gRPC
/// listener shares), read here from libmicrohttpd's socket addresses.
typealias ClientSubnet = ConnectionSharing.ClientSubnet

extension ClientSubnet {
    /// The subnet of a socket address (the accept-policy callback's argument).
    init?(_ address: UnsafePointer<sockaddr>?) {
        let subnet = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { bytes -> ClientSubnet? in
            bytes.initialize(repeating: 0)
            return ClientSubnet(family: csock_address_bytes(address, bytes.baseAddress), bytes: UnsafeBufferPointer(bytes))
        }
        guard let subnet else { return nil }
        self = subnet
    }

    /// The subnet of a connection's peer.
    init?(connection: OpaquePointer) {
        let subnet = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { bytes -> ClientSubnet? in
            bytes.initialize(repeating: 0)
            let family = cmhd_connection_address_bytes(connection, bytes.baseAddress)
            return ClientSubnet(family: family, bytes: UnsafeBufferPointer(bytes))
        }
        guard let subnet else { return nil }
        self = subnet
    }
}
