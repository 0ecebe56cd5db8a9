/// The comparison form of hosts, shared by requests and config patterns.
enum MatchHost {
    /// Serialized host, ASCII lower case, one trailing dot removed.
    ///
    /// Domains are already lower case after IDNA; opaque hosts (custom schemes) are not,
    /// and `pay.example.com.` names the same DNS host as `pay.example.com`.
    static func normalize(_ host: URLHost) -> String {
        if case .domain(let domain) = host { return stripTrailingDot(domain) }
        return asciiLowercased(host.serialized)
    }

    /// The match host of a parsed URL, read from its serialization without building a ``URLHost``.
    static func normalize(_ url: URLRecord) -> String? {
        switch url.hostTag {
        case .none: return nil
        case .domain: return stripTrailingDot(asciiLowercased(url.hostname))
        default: return asciiLowercased(url.hostname)
        }
    }

    private static func stripTrailingDot(_ domain: String) -> String {
        guard domain.utf8.count > 1, domain.utf8.last == UInt8(ascii: ".") else { return domain }
        return String(domain.dropLast())
    }

    /// Whether `matches` holds for a proper parent domain, nearest first: for `a.b.example.com`
    /// it is asked about `b.example.com`, `example.com`, `com` — the `*.` wildcards that cover
    /// the host. Slices, not new strings: this runs for every request.
    static func anyParentDomain(of host: String, _ matches: (Substring) -> Bool) -> Bool {
        var rest = Substring(host)
        while let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) {
            rest = rest[rest.utf8.index(after: dot)...]
            if rest.isEmpty { return false }
            if matches(rest) { return true }
        }
        return false
    }
}

/// ASCII-only lower-casing: Unicode case mapping would change what a byte-level
/// comparison sees (and non-ASCII is percent-encoded or punycode by now anyway).
/// Returns the same string, without copying, when it has no upper-case letter.
func asciiLowercased(_ text: String) -> String {
    var text = text
    // `withUTF8` scans contiguous bytes; iterating `utf8` generically costs several times more.
    return text.withUTF8 { bytes -> String? in
        guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
    } ?? text
}
