extension Substring {
    /// Without the spaces and tabs around it (HTTP's optional whitespace, a list entry as
    /// `X-Forwarded-For` spells it). Trimmed by bytes: `first == " "` compares `Character`s,
    /// and a header value that is one long run of combining marks is one `Character` whose
    /// comparison normalizes it, quadratic in its length (outside attack 15, F5 and F6).
    var trimmingBlanks: Substring {
        var bytes = utf8[...]
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        return Substring(bytes)
    }
}
