import CSockets
import Glibc

/// A connected TCP socket's setup: the outgoing connect the CONNECT tunnel makes, and the
/// options every connection gets.
public enum StreamSocket {
    /// A connect begun on a new non-blocking, close-on-exec socket.
    public enum Connecting: Sendable {
        /// Connected at once (a loopback peer can be).
        case connected(Int32)
        /// Still connecting: the socket becomes writable when done (read `SO_ERROR` then).
        case inProgress(Int32)
        /// No socket, or the connect failed at once.
        case failed
    }

    /// Begins connecting to `address`:`port` without blocking.
    public static func startConnecting(to address: IPAddress, port: UInt16) -> Connecting {
        let socket = csock_stream_socket(address.version)
        guard socket >= 0 else { return .failed }
        var raw = address.bytes + [UInt8](repeating: 0, count: 16 - address.bytes.count)
        if csock_connect(socket, address.version, &raw, port) == 0 { return .connected(socket) }
        if errno == EINPROGRESS { return .inProgress(socket) }
        close(socket)
        return .failed
    }

    /// The error a finished non-blocking connect ended with (`SO_ERROR`): 0 when it connected.
    public static func connectResult(of socket: Int32) -> Int32 {
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return errno }
        return failure
    }

    /// Turns Nagle's algorithm off: the protocols on these sockets write whole messages and
    /// wait for the answer, so a delayed small segment would stall each exchange.
    public static func setNoDelay(_ socket: Int32) {
        _ = csock_set_no_delay(socket)
    }
}
