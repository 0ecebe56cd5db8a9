/// The named host classes a `hosts` entry writes with a leading `@` (`@loopback`, `@internal`):
/// every spelling that reaches such a host, as ranges and reserved names, never a list of literals.
///
/// A rule on `127.0.0.1` alone misses `0.0.0.0`, `[::]`, `127.1.2.3` and `foo.localhost`, all of
/// which browsers and libcurl connect to loopback with; a class cannot be dodged that way. The
/// forward and reverse proxies check the address they actually connect to against ``internal``.
public enum AddressClass: String, Sendable, CaseIterable {
    /// 127.0.0.0/8, ::1, the unspecified addresses (on Linux a connection to `0.0.0.0` or `::`
    /// reaches loopback), and the names `localhost` and `*.localhost` (RFC 6761 §6.3; Chromium
    /// and curl resolve them to loopback without DNS).
    case loopback
    /// 0.0.0.0/8 and `::`.
    case unspecified
    /// RFC 1918 (10/8, 172.16/12, 192.168/16), CGNAT 100.64.0.0/10, IPv6 ULA fc00::/7 and the
    /// local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215: a translator of the site's own, so its
    /// addresses lead wherever that translator maps them, internal hosts included).
    case `private`
    /// 169.254.0.0/16 (cloud metadata lives at 169.254.169.254) and fe80::/10.
    case linkLocal = "link-local"
    /// Every class above.
    case `internal`

    /// The class a `hosts` entry names (`"@loopback"`), or nil when `entry` names none.
    public init?(entry: String) {
        guard entry.utf8.first == UInt8(ascii: "@") else { return nil }
        self.init(rawValue: String(entry.utf8.dropFirst()) ?? "")
    }

    /// How the class is written in a `hosts` list.
    public var entry: String { "@" + rawValue }

    /// Every entry a `hosts` list accepts, for error messages.
    public static var entriesList: String { allCases.map { "\"\($0.entry)\"" }.joined(separator: ", ") }

    /// The address ranges of the class.
    public var ranges: [AddressRange] {
        switch self {
        case .unspecified: Self.unspecifiedRanges
        case .loopback: Self.loopbackRanges + Self.unspecifiedRanges
        case .private: Self.privateRanges
        case .linkLocal: Self.linkLocalRanges
        case .internal: Self.loopbackRanges + Self.unspecifiedRanges + Self.privateRanges + Self.linkLocalRanges
        }
    }

    /// Whether the class covers the reserved names `localhost` and `*.localhost`.
    public var coversLocalhostNames: Bool { self == .loopback || self == .internal }

    /// Whether `address` is in the class.
    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Whether a domain in match form (lower case, one trailing dot removed) is `localhost` or
    /// under it, so `localhost`, `localhost.`, `a.b.localhost` and `a.localhost.` all are.
    public static func isLocalhostName(_ domain: Substring) -> Bool {
        let name = domain.utf8.last == UInt8(ascii: ".") ? domain.dropLast() : domain
        let suffix = "localhost".utf8
        guard name.utf8.count >= suffix.count, name.utf8.suffix(suffix.count).elementsEqual(suffix) else { return false }
        if name.utf8.count == suffix.count { return true }
        let before = name.utf8.index(name.utf8.endIndex, offsetBy: -(suffix.count + 1))
        return name.utf8[before] == UInt8(ascii: ".")
    }

    private static let loopbackRanges = [
        AddressRange(base: IPAddress(ipv4: 0x7F00_0000), prefixLength: 96 + 8),
        AddressRange(base: IPAddress(high: 0, low: 1), prefixLength: 128),
    ]
    private static let unspecifiedRanges = [
        AddressRange(base: IPAddress(ipv4: 0), prefixLength: 96 + 8),
        AddressRange(base: IPAddress(high: 0, low: 0), prefixLength: 128),
    ]
    private static let privateRanges = [
        AddressRange(base: IPAddress(ipv4: 0x0A00_0000), prefixLength: 96 + 8),
        AddressRange(base: IPAddress(ipv4: 0xAC10_0000), prefixLength: 96 + 12),
        AddressRange(base: IPAddress(ipv4: 0xC0A8_0000), prefixLength: 96 + 16),
        AddressRange(base: IPAddress(ipv4: 0x6440_0000), prefixLength: 96 + 10),
        AddressRange(base: IPAddress(high: 0xFC00_0000_0000_0000, low: 0), prefixLength: 7),
        AddressRange(base: IPAddress(high: 0x0064_FF9B_0001_0000, low: 0), prefixLength: 48),
    ]
    private static let linkLocalRanges = [
        AddressRange(base: IPAddress(ipv4: 0xA9FE_0000), prefixLength: 96 + 16),
        AddressRange(base: IPAddress(high: 0xFE80_0000_0000_0000, low: 0), prefixLength: 10),
    ]
}
