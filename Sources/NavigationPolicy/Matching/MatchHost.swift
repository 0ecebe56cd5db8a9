/// The comparison form of hosts, shared by requests and config patterns.
enum MatchHost {
    /// Serialized host, ASCII lower case, one trailing dot removed.
    ///
    /// Domains are already lower case after IDNA; opaque hosts (custom schemes) are not,
    /// and `pay.example.com.` names the same DNS host as `pay.example.com`.
    static func normalize(_ host: URLHost) -> String {
        var text = asciiLowercased(host.serialized)
        if case .domain = host, text.utf8.count > 1, text.utf8.last == UInt8(ascii: ".") {
            text.removeLast()
        }
        return text
    }
}

/// ASCII-only lower-casing: Unicode case mapping would change what a byte-level
/// comparison sees (and non-ASCII is percent-encoded or punycode by now anyway).
func asciiLowercased(_ text: String) -> String {
    var needsWork = false
    for byte in text.utf8 where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
        needsWork = true
        break
    }
    guard needsWork else { return text }
    return String(
        decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 },
        as: UTF8.self)
}
