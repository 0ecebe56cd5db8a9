import Glibc
public import NetworkSockets

/// The blocking steps of a tunnel before its relay, each bounded by a deadline: resolving the
/// host, connecting to the origin, writing bytes (``TunnelHandshake`` reads the handshake). They run
/// on the tunnel's own thread, on non-blocking sockets driven with `poll(2)`.
public enum TunnelSockets {
    /// One resolved address: 4 or 16 bytes in network order (the socket layer's ``IPAddress``).
    public typealias Address = IPAddress

    /// The addresses `host` (a name or an IP literal without brackets) resolves to, IPv4 and
    /// IPv6, in the resolver's order; empty when it does not resolve.
    public static func resolve(_ host: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            guard let raw = entry.pointee.ai_addr, let address = Address(socketAddress: raw) else { continue }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// A non-blocking socket connected to `address`:`port` within `timeoutMilliseconds`, or nil.
    public static func connect(to address: Address, port: Int, timeoutMilliseconds: Int) -> Int32? {
        let socket: Int32
        switch StreamSocket.startConnecting(to: address, port: UInt16(truncatingIfNeeded: port)) {
        case .failed: return nil
        case .connected(let connected): socket = connected
        case .inProgress(let connecting):
            guard wait(connecting, for: Int16(POLLOUT), milliseconds: timeoutMilliseconds),
                StreamSocket.connectResult(of: connecting) == 0
            else {
                close(connecting)
                return nil
            }
            socket = connecting
        }
        StreamSocket.setNoDelay(socket)
        return socket
    }

    /// Writes all of `bytes` to `socket` by `deadline`; false when it failed or ran out of time.
    public static func writeAll(_ bytes: [UInt8], to socket: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                continue
            }
            guard written < 0, errno == EAGAIN || errno == EINTR else { return false }
            let left = milliseconds(until: deadline)
            guard left > 0, wait(socket, for: Int16(POLLOUT), milliseconds: left) else { return false }
        }
        return true
    }

    /// Whether `socket` became ready for `events` within `milliseconds`.
    static func wait(_ socket: Int32, for events: Int16, milliseconds: Int) -> Bool {
        var entry = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    /// Milliseconds left until `deadline` (0 when passed).
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        return Int(left.components.seconds) * 1000 + Int(left.components.attoseconds / 1_000_000_000_000_000) + 1
    }
}
