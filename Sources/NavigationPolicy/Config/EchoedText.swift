/// Input quoted back in an error message, bounded.
///
/// An error names what it refuses (`unknown field "polcy"`), but a refused key or value may be
/// megabytes: one 8 MiB unknown key came back as a 16 MB 422 (issue 38, item 12). Whatever an
/// error quotes from its input goes through here, so an answer grows with the number of
/// things wrong, not with their size.
public enum EchoedText {
    /// The most UTF-8 bytes of one quoted key or value (a config key is a few dozen).
    public static let maximumBytes = 64

    /// The marker a cut text ends with.
    public static let ellipsis = "…"

    /// `text`, or its first ``maximumBytes`` bytes (whole characters) and ``ellipsis``.
    public static func bounded(_ text: String, maxBytes: Int = maximumBytes) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var end = text.unicodeScalars.startIndex
        var used = 0
        for index in text.unicodeScalars.indices {
            let width = UTF8.width(text.unicodeScalars[index])
            guard used + width <= maxBytes else { break }
            used += width
            end = text.unicodeScalars.index(after: index)
        }
        return String(text.unicodeScalars[..<end]) + ellipsis
    }
}
