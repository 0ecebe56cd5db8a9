/// The network a client address belongs to for connection sharing: its IPv4 /24 or its
/// IPv6 /64.
///
/// One host rarely holds one address only: a cloud VM or a home network gets a whole /64
/// (IPv6) and neighbouring IPv4 addresses usually belong to the same operator, so a per-address
/// limit alone is dodged by spreading connections over neighbours. An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`, what a dual-stack socket reports for an IPv4 client) is its IPv4 /24.
///
/// Pure: the listeners read the address bytes from their own sockets (libmicrohttpd's through
/// `HTTPServer`, the gRPC listener's through `accept(2)`) and hand them to
/// ``init(family:bytes:)``.
public struct ClientSubnet: Hashable, Sendable, CustomStringConvertible {
    /// IPv4: the three network bytes in the low 24 bits of `low`, `high` 0 and `isIPv6` false.
    /// IPv6: the first 8 bytes, big-endian, in `high`.
    private let high: UInt64
    private let low: UInt64
    private let isIPv6: Bool

    private init(high: UInt64, low: UInt64, isIPv6: Bool) {
        self.high = high
        self.low = low
        self.isIPv6 = isIPv6
    }

    /// The /24 of an IPv4 address, given as its first three bytes.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8) {
        self.init(high: 0, low: UInt64(a) << 16 | UInt64(b) << 8 | UInt64(c), isIPv6: false)
    }

    /// The subnet of an address in network byte order: `family` 4 (its first three bytes are
    /// read) or 6 (16 bytes); nil for any other family or a short buffer.
    public init?<Bytes: RandomAccessCollection<UInt8>>(family: Int32, bytes: Bytes) where Bytes.Index == Int {
        let start = bytes.startIndex
        switch family {
        case 4 where bytes.count >= 3:
            self.init(ipv4: bytes[start], bytes[start + 1], bytes[start + 2])
        case 6 where bytes.count >= 16:
            // ::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4 peer.
            let mapped =
                bytes[start..<start + 10].allSatisfy { $0 == 0 } && bytes[start + 10] == 0xff && bytes[start + 11] == 0xff
            if mapped {
                self.init(ipv4: bytes[start + 12], bytes[start + 13], bytes[start + 14])
                return
            }
            self.init(high: bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) }, low: 0, isIPv6: true)
        default:
            return nil
        }
    }

    /// `192.0.2.0/24` or `2001:db8:1:2::/64`, for logs.
    public var description: String {
        if !isIPv6 { return "\(low >> 16 & 0xff).\(low >> 8 & 0xff).\(low & 0xff).0/24" }
        let groups = stride(from: 48, through: 0, by: -16).map { String(high >> UInt64($0) & 0xffff, radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
