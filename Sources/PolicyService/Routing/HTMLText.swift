/// Escaping for text placed in HTML pages the daemon serves (policy pages, intake items).
///
/// Everything that reaches these pages (URLs, handler names, titles) is user- or
/// config-controlled, so element content and attribute values are always escaped.
enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'`, which is enough for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
