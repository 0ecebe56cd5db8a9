/// Recognizes regular-expression and glob syntax written in a field that takes neither,
/// and says which field does what the author meant.
///
/// Without this, `"/admin/*"` in `paths` or `"evil.com$"` in `hosts` compiles to a literal
/// that no request ever has: the rule silently never fires, and the navigation it was meant
/// to stop is allowed. Every such entry is an error that names the right field.
enum PatternAdvice {
    /// Bytes that only mean something in a regular expression (`.` alone is too common in paths to count).
    static let regexBytes = Set("^$()[]{}+\\|".utf8)

    /// Whether `byte` is one of ``regexBytes``: a switch is a jump table, where hashing into
    /// the set cost ~40 instructions per byte of every configured host.
    static func isRegexByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "+"), UInt8(ascii: "\\"),
            UInt8(ascii: "|"):
            true
        default: false
        }
    }

    /// The error for a `hosts` entry that is a regex or a misplaced `*`, or nil when it is neither.
    static func host(_ pattern: String) -> String? {
        // One byte scan first: without a regex byte, a star anywhere but a leading `*.` is the
        // only advice left, so plain names and `*.` wildcards (nearly every entry of a big
        // list) return here without the array, filter and prefix work below.
        var sawRegexByte = false
        var sawStar = false
        for byte in pattern.utf8 {
            if isRegexByte(byte) { sawRegexByte = true } else if byte == UInt8(ascii: "*") { sawStar = true }
        }
        if !sawRegexByte, !sawStar || pattern.hasPrefix("*.") { return nil }
        let bytes = Array(pattern.utf8)
        let bracketedAddress =
            bytes.first == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]")
            && bytes.dropFirst().dropLast().allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        // `[` opens an IPv6 literal; a malformed one is the host parser's to report.
        let startsAddress = bytes.first == UInt8(ascii: "[")
        let hasRegex =
            !bracketedAddress
            && bytes.contains { isRegexByte($0) && !(startsAddress && ($0 == 0x5B || $0 == 0x5D)) }
        let stars = bytes.filter { $0 == UInt8(ascii: "*") }.count
        // `*.*.example` and the like are malformed wildcards, which the host parser explains.
        let leadingWildcardOnly = pattern.hasPrefix("*.")
        guard hasRegex || (stars > 0 && !leadingWildcardOnly) else { return nil }
        let quoted = "\"\(pattern)\" in hosts: "
        if pattern == "*" { return quoted + "\"*\" alone would match every host; omit \"hosts\" to match any host" }
        let kind =
            hasRegex || pattern.contains(substring: ".*")
            ? "hosts are exact host names (or \"*.example.com\" for subdomains), not regular expressions"
            : "\"*\" is only allowed as a whole leading label (\"*.example.com\")"
        var text = Substring(pattern)
        if text.hasPrefix("^") { text = text.dropFirst() }
        if text.hasSuffix("$") { text = text.dropLast() }
        var subdomains = false
        for lead in ["(.*\\.)?", "(.+\\.)?", ".*\\.", ".+\\.", ".*", ".+", "*."] where text.hasPrefix(lead) {
            subdomains = true
            text = text.dropFirst(lead.count)
            break
        }
        let domain = String(text).replacing(every: "\\.", with: ".")
        let isPlainName =
            !domain.isEmpty && domain.utf8.first != UInt8(ascii: ".")
            && domain.utf8.allSatisfy {
                isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            }
        guard isPlainName else {
            return quoted + kind + "; list each host exactly, and \"*.example.com\" for every subdomain of example.com"
        }
        if subdomains {
            return quoted + kind
                + "; for every subdomain of \(domain) write \"*.\(domain)\", and add \"\(domain)\" for the domain itself"
        }
        return quoted + kind + "; write \"\(domain)\" (and \"*.\(domain)\" to cover its subdomains)"
    }

    /// The error for a `paths` or `pathPrefixes` entry with wildcard or regex syntax, or nil.
    static func exactPath(_ path: String, field: String) -> String? {
        // Nearly every configured path is plain; one byte scan proves that before the
        // Character-level searches below (which cost ~20k instructions a path). Every check
        // below needs one of these ASCII bytes to be present, so skipping them is exact.
        guard path.utf8.contains(where: isAdviceByte) else { return nil }
        let hasWildcard = path.contains("*") || path.contains("?")
        // `.*` is how regex authors write "anything"; as a glob it would need a literal dot.
        let hasRegex = path.utf8.contains { isRegexByte($0) } || path.contains(substring: ".+") || path.contains(substring: ".*")
        guard hasWildcard || hasRegex else { return nil }
        let quoted = "\"\(path)\" in \(field): "
        let what =
            field == "paths"
            ? "paths are exact" : "pathPrefixes are whole-segment prefixes (\"/admin\" covers \"/admin/users\")"
        if !hasRegex {
            var advice = quoted + what + "; use "
            if path.hasSuffix("/*"), !path.dropLast(2).contains(where: { $0 == "*" || $0 == "?" }) {
                let directory = path.dropLast(2).isEmpty ? "/" : String(path.dropLast(2))
                advice += "pathPrefixes [\"\(directory)\"] or "
            }
            return advice + "pathPatterns [\"\(path)\"]"
        }
        let notRegex = quoted + what + " strings, not regular expressions"
        guard let alternatives = globAlternatives(path) else {
            return notRegex
                + "; write exact paths in paths, segment prefixes in pathPrefixes, and wildcards (\"*\" any run, \"?\" one character) in pathPatterns; \"(\", \")\" and \"+\" are literal only in pathPatterns"
        }
        let list = alternatives.map { "\"\($0)\"" }.joined(separator: ", ")
        if alternatives.allSatisfy({ !$0.contains("*") && !$0.contains("?") }) {
            return notRegex + "; list each path: \(field) [\(list)]"
        }
        return notRegex + "; use pathPatterns [\(list)] (\"*\" any run of characters, \"?\" one character)"
    }

    /// The error for a `pathPatterns` entry with regex-only syntax, or nil.
    ///
    /// `(`, `)` and `+` stay literal here (`/c++`, `/wiki/Swift_(language)`), so this is where
    /// paths with them are written; an alternation or a character class is not.
    static func pattern(_ pattern: String) -> String? {
        let regexOnly = Set("^$[]{}\\|".utf8)
        guard pattern.utf8.contains(where: { regexOnly.contains($0) }) else { return nil }
        let quoted = "\"\(pattern)\" in pathPatterns: "
        let what = "patterns take \"*\" (any run of characters) and \"?\" (one character), not regular expressions"
        guard let alternatives = globAlternatives(pattern) else {
            return quoted + what + "; list each alternative as its own entry"
        }
        return quoted + what + "; write " + alternatives.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// A best-effort translation of a simple regex to globs: `^`/`$` anchors dropped, `.*`
    /// → `*`, `.+` and `[…]+` → `?*`, `[…]` → `?`, `\x` → `x`, one `(a|b)` group expanded.
    /// Nil when something else remains, so advice is never a wrong translation.
    static func globAlternatives(_ regex: String) -> [String]? {
        var text = Substring(regex)
        if text.hasPrefix("^") { text = text.dropFirst() }
        if text.hasSuffix("$"), !text.hasSuffix("\\$") { text = text.dropLast() }
        var variants = [""]
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            var next = text.index(after: index)
            var piece: [String]
            switch character {
            case "\\":
                guard next < text.endIndex else { return nil }
                piece = [String(text[next])]
                next = text.index(after: next)
            case ".":
                piece = ["?"]
                if next < text.endIndex, text[next] == "*" || text[next] == "+" {
                    piece = [text[next] == "*" ? "*" : "?*"]
                    next = text.index(after: next)
                }
            case "[":
                guard let close = text[next...].firstIndex(of: "]") else { return nil }
                next = text.index(after: close)
                piece = ["?"]
                if next < text.endIndex, text[next] == "*" || text[next] == "+" {
                    piece = [text[next] == "*" ? "*" : "?*"]
                    next = text.index(after: next)
                }
            case "(":
                guard let close = text[next...].firstIndex(of: ")") else { return nil }
                let inner = text[next..<close]
                guard !inner.contains("("), !inner.contains("["), !inner.contains("\\") else { return nil }
                piece = inner.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                next = text.index(after: close)
                guard next == text.endIndex || (text[next] != "?" && text[next] != "*" && text[next] != "+") else {
                    return nil
                }
            case "^", "$", "{", "}", "|", ")", "]", "+":
                return nil
            default:
                piece = [String(character)]
            }
            guard variants.count * piece.count <= 16 else { return nil }
            variants = variants.flatMap { prefix in piece.map { prefix + $0 } }
            index = next
        }
        return variants.allSatisfy({ $0.hasPrefix("/") }) ? variants : nil
    }

    /// Whether `byte` can start any syntax ``exactPath(_:field:)`` advises on: a wildcard,
    /// `+` (of `.+`) or a regex byte.
    private static func isAdviceByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "+"), UInt8(ascii: "^"), UInt8(ascii: "$"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
            UInt8(ascii: "}"), UInt8(ascii: "\\"), UInt8(ascii: "|"):
            true
        default: false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
    }
}
