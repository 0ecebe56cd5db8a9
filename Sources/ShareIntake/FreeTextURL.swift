/// Finds the URL in free text such as Android's `text` share field ("Look at this https://…").
///
/// Rule (issue 4): the first `http://` or `https://` token (case-insensitive), ending at
/// whitespace or `<`, `>`, `"`; trailing punctuation `.,;:!?)]}'"…` is stripped, except a
/// closing bracket that balances an opening one inside the URL (Wikipedia's `Foo_(bar)`).
public enum FreeTextURL {
    /// The first web-URL token in `text`, or nil.
    public static func first(in text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        guard let start = tokenStart(in: scalars) else { return nil }
        var end = start
        while end < scalars.count, !isTerminator(scalars[end]) { end += 1 }
        var token = Array(scalars[start..<end])
        while let last = token.last, shouldStrip(last, from: token) { token.removeLast() }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: token)
        let url = String(result)
        // "https://" alone is no URL.
        return url.lowercased() == "http://" || url.lowercased() == "https://" ? nil : url
    }

    private static func tokenStart(in scalars: [Unicode.Scalar]) -> Int? {
        let prefixes: [[Unicode.Scalar]] = [Array("http://".unicodeScalars), Array("https://".unicodeScalars)]
        var index = 0
        while index < scalars.count {
            for prefix in prefixes where index + prefix.count <= scalars.count {
                var matches = true
                for offset in 0..<prefix.count
                where Character(scalars[index + offset]).lowercased() != String(prefix[offset]) {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isTerminator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "<" || scalar == ">" || scalar == "\"" || scalar.value < 0x20
    }

    private static let trailingPunctuation: Set<Unicode.Scalar> = [
        ".", ",", ";", ":", "!", "?", ")", "]", "}", "'", "\"", "\u{2026}",
    ]
    private static let openerFor: [Unicode.Scalar: Unicode.Scalar] = [")": "(", "]": "[", "}": "{"]

    private static func shouldStrip(_ last: Unicode.Scalar, from token: [Unicode.Scalar]) -> Bool {
        guard trailingPunctuation.contains(last) else { return false }
        guard let opener = openerFor[last] else { return true }
        let opened = token.count { $0 == opener }
        let closed = token.count { $0 == last }
        return closed > opened
    }
}
