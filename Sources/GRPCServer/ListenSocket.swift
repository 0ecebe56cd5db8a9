import ConnectionSharing
import Glibc

/// The listening socket's system calls: bind an IPv4 or IPv6 address, read the bound port,
/// name a peer's address and its network.
enum ListenSocket {
    static func bind(host: String, port: UInt16) throws(GRPCServerError) -> Int32 {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
        } else {
            throw GRPCServerError("\(host): not an IPv4 or IPv6 address", kind: .invalidAddress)
        }
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw GRPCServerError("socket: \(String(cString: strerror(errno)))") }
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if family == AF_INET {
            bound = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            bound = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0, listen(socket, 1024) == 0 else {
            let code = errno
            close(socket)
            throw GRPCServerError(
                "bind \(host):\(port): \(String(cString: strerror(code)))", kind: GRPCServerError.kind(bindErrno: code))
        }
        return socket
    }

    static func port(of socket: Int32) throws(GRPCServerError) -> UInt16 {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard result == 0 else { throw GRPCServerError("getsockname: \(String(cString: strerror(errno)))") }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default: throw GRPCServerError("the listening socket is not TCP over IPv4 or IPv6")
        }
    }

    /// The peer's network (IPv4 /24, IPv6 /64; an IPv4-mapped IPv6 peer is its IPv4 /24): the
    /// key of the per-network share. Nil for a family that is neither.
    static func subnet(of address: sockaddr_storage) -> ClientSubnet? {
        var address = address
        return withUnsafePointer(to: &address) { pointer -> ClientSubnet? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    // s_addr is in network byte order: its bytes in memory are the address's.
                    withUnsafeBytes(of: v4.pointee.sin_addr.s_addr) { ClientSubnet(family: 4, bytes: Array($0)) }
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    withUnsafeBytes(of: v6.pointee.sin6_addr) { ClientSubnet(family: 6, bytes: Array($0)) }
                }
            default: return nil
            }
        }
    }

    /// The peer's address as text: the key of the per-address connection limit.
    static func host(of address: sockaddr_storage) -> String {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let result: UnsafePointer<CChar>? = withUnsafePointer(to: &address) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var raw = v6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            default: return nil
            }
        }
        guard result != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
