import CTunnel
import Glibc

/// The blocking steps of a tunnel before its relay, each bounded by a deadline: resolving the
/// host, connecting to the origin, writing bytes (``TunnelHandshake`` reads the handshake). They run
/// on the tunnel's own thread, on non-blocking sockets driven with `poll(2)`.
public enum TunnelSockets {
    /// One resolved address: 4 or 16 bytes in network order.
    public struct Address: Sendable, Equatable {
        public let bytes: [UInt8]

        /// An address from its 4 or 16 bytes; nil for any other length.
        public init?(bytes: [UInt8]) {
            guard bytes.count == 4 || bytes.count == 16 else { return nil }
            self.bytes = bytes
        }

        /// A numeric IPv4 or IPv6 address (brackets allowed), nothing looser.
        public init?(numeric text: String) {
            var text = Substring(text)
            if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
            var storage = [UInt8](repeating: 0, count: 16)
            if inet_pton(AF_INET, String(text), &storage) == 1 {
                bytes = Array(storage.prefix(4))
            } else if inet_pton(AF_INET6, String(text), &storage) == 1 {
                bytes = storage
            } else {
                return nil
            }
        }

        /// The address as text ("127.0.0.1", "::1") for logs.
        public var text: String {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

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
            guard let raw = entry.pointee.ai_addr else { continue }
            var bytes: [UInt8] = []
            if entry.pointee.ai_family == AF_INET {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    withUnsafeBytes(of: v4.pointee.sin_addr) { bytes = Array($0) }
                }
            } else if entry.pointee.ai_family == AF_INET6 {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    withUnsafeBytes(of: v6.pointee.sin6_addr) { bytes = Array($0) }
                }
            }
            if let address = Address(bytes: bytes), !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// A non-blocking socket connected to `address`:`port` within `timeoutMilliseconds`, or nil.
    public static func connect(to address: Address, port: Int, timeoutMilliseconds: Int) -> Int32? {
        let family = address.bytes.count == 4 ? AF_INET : AF_INET6
        let socket = ctunnel_stream_socket(family)
        guard socket >= 0 else { return nil }
        let started: Int32
        if family == AF_INET {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.bytes) }
            started = startConnecting(socket, to: &v4)
        } else {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            started = startConnecting(socket, to: &v6)
        }
        if started != 0 {
            guard errno == EINPROGRESS, wait(socket, for: Int16(POLLOUT), milliseconds: timeoutMilliseconds) else {
                close(socket)
                return nil
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 else {
                close(socket)
                return nil
            }
        }
        var on: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    /// `connect(2)` with a `sockaddr_in` or `sockaddr_in6`.
    private static func startConnecting<SocketAddress>(_ socket: Int32, to address: inout SocketAddress) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<SocketAddress>.size))
            }
        }
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
