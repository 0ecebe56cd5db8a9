/// Escaping for text placed in HTML pages the daemon serves (policy pages, intake items).
///
/// Everything that reaches these pages (URLs, handler names, titles) is user- or
/// config-controlled, so element content and attribute values are always escaped.
enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'`, which is enough for element content and quoted attributes.
    ///
    /// By UTF-8 bytes, not `Character`s: a quote followed by a combining mark is one
    /// `Character` that is not `"`, so it went out unescaped, and an HTML parser ends a quoted
    /// attribute at that quote whatever follows it; and comparing a `Character` that is a long
    /// run of combining marks with each of the five normalizes it each time, 39 s of CPU for one
    /// view of a stored 256 KiB title (outside attack 16, F3). The five are ASCII, and an ASCII
    /// byte in UTF-8 is always that character, never part of another.
    static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
