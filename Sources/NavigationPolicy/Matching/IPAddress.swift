/// An IP address in the one form ranges compare: 128 bits, IPv4 as IPv4-mapped IPv6.
///
/// Every address that reaches an IPv4 host is folded to `::ffff:a.b.c.d` — IPv4 itself, the
/// IPv4-mapped form, and the NAT64 well-known prefix `64:ff9b::a.b.c.d` — so a range written
/// as `127.0.0.0/8` covers `http://127.1/`, `http://[::ffff:127.0.0.1]/` and
/// `http://[64:ff9b::7f00:1]/` alike (the same folding ``MatchHost`` applies to exact hosts).
public struct IPAddress: Sendable, Hashable, Comparable {
    /// The high and low 64 bits, network order.
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address (first octet in the high byte), as `::ffff:a.b.c.d`.
    public init(ipv4: UInt32) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(ipv4))
    }

    /// An IPv6 address from its eight pieces; one that embeds an IPv4 host is folded to it.
    /// Nil unless there are exactly eight pieces.
    public init?(ipv6Pieces pieces: [UInt16]) {
        guard pieces.count == 8 else { return nil }
        if let embedded = MatchHost.embeddedIPv4(pieces) {
            self.init(ipv4: embedded)
            return
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for piece in pieces[0..<4] { high = high << 16 | UInt64(piece) }
        for piece in pieces[4..<8] { low = low << 16 | UInt64(piece) }
        self.init(high: high, low: low)
    }

    /// An address from the 16 bytes of an `in6_addr` or the 4 bytes of an `in_addr`
    /// (network order), as a socket hands them over; nil for any other length.
    public init?(networkBytes bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4:
            self.init(ipv4: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16:
            var pieces: [UInt16] = []
            pieces.reserveCapacity(8)
            var iterator = bytes.makeIterator()
            while let first = iterator.next(), let second = iterator.next() {
                pieces.append(UInt16(first) << 8 | UInt16(second))
            }
            self.init(ipv6Pieces: pieces)
        default:
            return nil
        }
    }

    /// The address of a parsed URL host, or nil for names and opaque hosts.
    public init?(_ host: URLHost) {
        switch host {
        case .ipv4(let address): self.init(ipv4: address)
        case .ipv6(let pieces): self.init(ipv6Pieces: pieces)
        default: return nil
        }
    }

    /// Whether this is an IPv4 address (or one folded to it).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Dotted decimal for IPv4, the compressed IPv6 form otherwise.
    public var description: String {
        if isIPv4 { return IPv4Address.serialize(UInt32(truncatingIfNeeded: low)) }
        var pieces: [UInt16] = []
        for shift in stride(from: 48, through: 0, by: -16) { pieces.append(UInt16(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 48, through: 0, by: -16) { pieces.append(UInt16(truncatingIfNeeded: low >> UInt64(shift))) }
        return IPv6Address.serialize(pieces)
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
