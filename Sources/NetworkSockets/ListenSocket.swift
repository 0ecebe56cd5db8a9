import CSockets
import Glibc

/// A listening TCP socket and the port it is bound to: opened here, or passed by systemd
/// (socket activation) and checked here. The one place every listener binds, adopts, stops
/// and accepts: libmicrohttpd's HTTP listeners (non-blocking, their epoll loops accept) and
/// the gRPC listener (blocking, its accept thread calls ``accept()``).
public struct ListenSocket: Sendable {
    /// The descriptor.
    public let descriptor: Int32
    /// The bound port (the one picked, when 0 was asked).
    public let port: UInt16

    /// Binds `address`:`port` (0 picks a free port) and listens, close-on-exec, with
    /// `SO_REUSEADDR` and, for IPv6, dual stack (`IPV6_V6ONLY` off: "::" takes IPv4 too).
    /// Binding here, not inside a library, lets the caller report `EADDRINUSE` precisely and
    /// learn the ephemeral port.
    public static func open(address: IPAddress, port: UInt16, backlog: Int32, nonBlocking: Bool) -> Result<
        ListenSocket, SocketError
    > {
        var boundPort: UInt16 = 0
        var errorNumber: Int32 = 0
        var raw = address.bytes + [UInt8](repeating: 0, count: 16 - address.bytes.count)
        let descriptor = csock_open_listen_socket(
            address.version, &raw, port, backlog, nonBlocking ? 1 : 0, &boundPort, &errorNumber)
        guard descriptor >= 0 else { return .failure(SocketError(errorNumber: errorNumber)) }
        return .success(ListenSocket(descriptor: descriptor, port: boundPort))
    }

    /// Takes an inherited descriptor after checking that it is a listening IPv4/IPv6 TCP
    /// socket (serving a wrong one, a file or a UDP socket, must fail at start, not later),
    /// and sets it close-on-exec and non-blocking or blocking as the listener waits.
    public static func adopt(_ descriptor: Int32, nonBlocking: Bool) -> Result<ListenSocket, SocketError> {
        var boundPort: UInt16 = 0
        var errorNumber: Int32 = 0
        guard csock_inspect_listen_socket(descriptor, nonBlocking ? 1 : 0, &boundPort, &errorNumber) == 0 else {
            return .failure(errorNumber == 0 ? .notAListeningSocket : SocketError(errorNumber: errorNumber))
        }
        return .success(ListenSocket(descriptor: descriptor, port: boundPort))
    }

    /// Makes the kernel refuse new connections on `descriptor` at once (queued ones are
    /// reset), keeping the descriptor open so no thread races on a reused number; true when
    /// it did.
    public static func refuseNewConnections(_ descriptor: Int32) -> Bool {
        csock_refuse_new_connections(descriptor) == 0
    }

    /// What one `accept(2)` on a blocking listen socket gave.
    public enum Accepted: Sendable {
        /// A connection: its descriptor (close-on-exec, blocking) and its peer's address
        /// (nil for a family that is neither IPv4 nor IPv6, none on a TCP listener).
        case connection(Int32, peer: IPAddress?)
        /// Interrupted, or the peer gave up before it was taken: accept again.
        case retry
        /// The process or the system is out of descriptors or memory: accept again once
        /// connections have closed, instead of spinning.
        case outOfDescriptors
        /// The socket was shut down (the listener stopped accepting) or failed for good.
        case closed
    }

    /// Waits for and takes the next connection on the blocking listen socket `descriptor`.
    public static func accept(on descriptor: Int32) -> Accepted {
        var raw = [UInt8](repeating: 0, count: 16)
        var version: Int32 = 0
        let socket = csock_accept(descriptor, &raw, &version)
        guard socket < 0 else { return .connection(socket, peer: IPAddress(version: version, raw: raw)) }
        switch errno {
        case EINTR, ECONNABORTED: return .retry
        case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
        default: return .closed
        }
    }
}
