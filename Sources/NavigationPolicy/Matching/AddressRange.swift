/// A CIDR range (`10.0.0.0/8`, `fd00::/8`), compared on ``IPAddress``'s folded form.
///
/// An IPv4 range `a.b.c.d/n` is the IPv6 range `::ffff:a.b.c.d/(96 + n)`, so it covers the
/// IPv4-mapped and NAT64 spellings of its addresses too. An IPv6 range written over
/// `::ffff:0:0/96` therefore also covers IPv4 addresses (`::/0` covers every address).
public struct AddressRange: Sendable, Hashable {
    /// The first address of the range (host bits zero).
    public let base: IPAddress
    /// Prefix length in bits of the 128-bit form (96 + n for an IPv4 `/n`).
    public let prefixLength: Int

    /// A range from its first address and 128-bit prefix length; host bits of `base` are cleared.
    public init(base: IPAddress, prefixLength: Int) {
        let length = max(0, min(128, prefixLength))
        self.prefixLength = length
        self.base = Self.mask(base, length)
    }

    /// Whether `address` lies in the range.
    public func contains(_ address: IPAddress) -> Bool {
        Self.mask(address, prefixLength) == base
    }

    /// The range as written in config: `127.0.0.0/8`, `fc00::/7`.
    public var description: String {
        base.isIPv4 && prefixLength >= 96 ? "\(base.description)/\(prefixLength - 96)" : "\(base.description)/\(prefixLength)"
    }

    private static func mask(_ address: IPAddress, _ length: Int) -> IPAddress {
        let highMask: UInt64 = length >= 64 ? .max : (length == 0 ? 0 : ~(UInt64.max >> UInt64(length)))
        let lowBits = length - 64
        let lowMask: UInt64 = lowBits >= 64 ? .max : (lowBits <= 0 ? 0 : ~(UInt64.max >> UInt64(lowBits)))
        return IPAddress(high: address.high & highMask, low: address.low & lowMask)
    }

    /// Parses `a.b.c.d/n` (n ≤ 32) or an IPv6 address (bracketed or not) `/n` (n ≤ 128).
    ///
    /// The address is read by the WHATWG host parser, as `hosts` entries are. Bits set past the
    /// prefix are refused rather than silently cleared: `10.0.0.1/8` is more likely a typo for a
    /// host than a wish for all of `10.0.0.0/8`. Nil when `text` has no `/` (not a range at all).
    public static func parse(_ text: String) -> Result<AddressRange, PatternError>? {
        let bytes = Array(text.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let addressText = String(decoding: bytes[..<slash], as: UTF8.self)
        let lengthBytes = bytes[(slash + 1)...]
        guard !lengthBytes.isEmpty, lengthBytes.count <= 3,
            lengthBytes.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
            lengthBytes.count == 1 || lengthBytes.first != UInt8(ascii: "0")
        else {
            return .failure(
                PatternError("\"\(text)\": the prefix length after \"/\" must be a number (\"10.0.0.0/8\", \"fd00::/8\")"))
        }
        let length = lengthBytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard !addressText.isEmpty else {
            return .failure(PatternError("\"\(text)\": a range needs an address before \"/\""))
        }
        let isIPv6 = addressText.utf8.contains(UInt8(ascii: ":"))
        let hostText =
            isIPv6 && addressText.utf8.first != UInt8(ascii: "[") ? "[" + addressText + "]" : addressText
        let host: URLHost
        do {
            host = try URLHost.parse(hostText)
        } catch {
            return .failure(PatternError("\"\(text)\": not an IP address range: \(error)"))
        }
        let address: IPAddress
        let fullLength: Int
        switch host {
        case .ipv4(let value):
            guard length <= 32 else {
                return .failure(PatternError("\"\(text)\": an IPv4 prefix length is at most 32"))
            }
            address = IPAddress(ipv4: value)
            fullLength = 96 + length
        case .ipv6(let pieces):
            guard length <= 128 else {
                return .failure(PatternError("\"\(text)\": an IPv6 prefix length is at most 128"))
            }
            guard let parsed = IPAddress(ipv6Pieces: pieces) else {
                return .failure(PatternError("\"\(text)\": not an IP address range"))
            }
            // A mapped or NAT64 base was folded to IPv4: its prefix counts within the last 32 bits.
            if parsed.isIPv4, !(pieces[0..<5].allSatisfy { $0 == 0 } && pieces[5] == 0xFFFF) {
                guard length >= 96 else {
                    return .failure(
                        PatternError("\"\(text)\": a NAT64 range shorter than /96 is not supported; write the IPv4 range"))
                }
            }
            address = parsed
            fullLength = length
        default:
            return .failure(PatternError("\"\(text)\": a range needs an IP address before \"/\", not a name"))
        }
        let range = AddressRange(base: address, prefixLength: fullLength)
        guard range.base == address else {
            return .failure(
                PatternError(
                    "\"\(text)\": host bits are set past the /\(length) prefix; write \"\(range.description)\" for the range"))
        }
        return .success(range)
    }
}
