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
        end = trimmedEnd(of: scalars[start..<end])
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[start..<end])
        let url = String(result)
        // "https://" alone is no URL. Compared only when that short: `==` on a long token of
        // combining marks normalizes it, in time that grows with the square of its length.
        guard url.utf8.count <= 8 else { return url }
        return url.lowercased() == "http://" || url.lowercased() == "https://" ? nil : url
    }

    /// Where `token` ends once its trailing punctuation is stripped: one scalar at a time from
    /// the end, a closing bracket only while the token has more of it than of its opener.
    /// The brackets are counted once and the counts kept as closers are stripped: counted
    /// again per stripped scalar, a token ending in 64 KiB of `)` cost 2 s, and a 256 KiB share
    /// 33 s (outside attack 16, F1).
    private static func trimmedEnd(of token: ArraySlice<Unicode.Scalar>) -> Int {
        var opened: [Unicode.Scalar: Int] = [:]
        var closed: [Unicode.Scalar: Int] = [:]
        for scalar in token {
            if openerFor[scalar] != nil {
                closed[scalar, default: 0] += 1
            } else if openerFor.values.contains(scalar) {
                opened[scalar, default: 0] += 1
            }
        }
        var end = token.endIndex
        while end > token.startIndex {
            let last = token[end - 1]
            guard trailingPunctuation.contains(last) else { break }
            if let opener = openerFor[last] {
                guard closed[last, default: 0] > opened[opener, default: 0] else { break }
                closed[last, default: 0] -= 1
            }
            end -= 1
        }
        return end
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
}
