/// The URLPattern tokenizer (https://urlpattern.spec.whatwg.org/#tokenizing), over code points.
struct PatternTokenizer {
    private let input: [Unicode.Scalar]
    private let policy: TokenizePolicy
    private var tokens: [PatternToken] = []
    private var index = 0
    private var nextIndex = 0
    private var codePoint: Unicode.Scalar = " "

    /// Tokenizes `input`; a strict tokenizer throws on the first malformed construct.
    static func tokenize(_ input: String, policy: TokenizePolicy) throws(URLPatternError) -> [PatternToken] {
        var tokenizer = PatternTokenizer(input: Array(input.unicodeScalars), policy: policy)
        try tokenizer.run()
        return tokenizer.tokens
    }

    private init(input: [Unicode.Scalar], policy: TokenizePolicy) {
        self.input = input
        self.policy = policy
    }

    /// Whether `scalar` may appear in a `:name` (ECMAScript IdentifierStart / IdentifierPart).
    static func isValidNameCodePoint(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
        if first { return scalar.properties.isIDStart || scalar == "$" || scalar == "_" }
        return scalar.properties.isIDContinue || scalar == "$" || scalar == "\u{200C}" || scalar == "\u{200D}"
    }

    private mutating func run() throws(URLPatternError) {
        while index < input.count {
            seekAndGetNextCodePoint(index)
            switch codePoint {
            case "*":
                addToken(.asterisk)
            case "+", "?":
                addToken(.otherModifier)
            case "\\":
                if index == input.count - 1 {
                    try tokenizingError(nextIndex, index, "a pattern cannot end with a lone '\\'")
                    continue
                }
                let escapedIndex = nextIndex
                getNextCodePoint()
                addToken(.escapedChar, next: nextIndex, valueAt: escapedIndex)
            case "{":
                addToken(.open)
            case "}":
                addToken(.close)
            case ":":
                try name()
            case "(":
                try regexp()
            default:
                addToken(.char)
            }
        }
        addToken(.end, next: index, valueAt: index)
    }

    private mutating func name() throws(URLPatternError) {
        var position = nextIndex
        let start = position
        while position < input.count {
            seekAndGetNextCodePoint(position)
            guard Self.isValidNameCodePoint(codePoint, first: position == start) else { break }
            position = nextIndex
        }
        if position <= start {
            try tokenizingError(start, index, "':' must be followed by a group name")
            return
        }
        addToken(.name, next: position, valueAt: start)
    }

    private mutating func regexp() throws(URLPatternError) {
        var depth = 1
        var position = nextIndex
        let start = position
        while position < input.count {
            seekAndGetNextCodePoint(position)
            if !codePoint.isASCII {
                return try tokenizingError(start, index, "a regexp group may only contain ASCII")
            }
            if position == start, codePoint == "?" {
                return try tokenizingError(start, index, "a regexp group cannot start with '?'")
            }
            if codePoint == "\\" {
                if position == input.count - 1 {
                    return try tokenizingError(start, index, "a regexp group cannot end with a lone '\\'")
                }
                getNextCodePoint()
                if !codePoint.isASCII {
                    return try tokenizingError(start, index, "a regexp group may only escape ASCII")
                }
                position = nextIndex
                continue
            }
            if codePoint == ")" {
                depth -= 1
                if depth == 0 {
                    position = nextIndex
                    break
                }
            } else if codePoint == "(" {
                depth += 1
                if position == input.count - 1 {
                    return try tokenizingError(start, index, "a regexp group is not closed")
                }
                let temporary = nextIndex
                getNextCodePoint()
                if codePoint != "?" {
                    return try tokenizingError(
                        start, index, "a group inside a regexp group must be non-capturing '(?…)'")
                }
                nextIndex = temporary
            }
            position = nextIndex
        }
        if depth != 0 {
            return try tokenizingError(start, index, "a regexp group is missing its ')'")
        }
        let length = position - start - 1
        if length == 0 {
            return try tokenizingError(start, index, "a regexp group cannot be empty")
        }
        addToken(.regexp, next: position, valueAt: start, length: length)
    }

    private mutating func getNextCodePoint() {
        codePoint = nextIndex < input.count ? input[nextIndex] : " "
        nextIndex += 1
    }

    private mutating func seekAndGetNextCodePoint(_ at: Int) {
        nextIndex = at
        getNextCodePoint()
    }

    /// "Add a token": default next position = next index, default value = index..<next.
    private mutating func addToken(_ kind: PatternToken.Kind) {
        addToken(kind, next: nextIndex, valueAt: index)
    }

    private mutating func addToken(_ kind: PatternToken.Kind, next: Int, valueAt: Int, length: Int? = nil) {
        let lo = max(0, min(valueAt, input.count))
        let hi = max(lo, min(valueAt + (length ?? (next - valueAt)), input.count))
        var value = String.UnicodeScalarView()
        value.append(contentsOf: input[lo..<hi])
        tokens.append(PatternToken(kind: kind, index: index, value: String(value)))
        index = next
    }

    private mutating func tokenizingError(_ next: Int, _ valueAt: Int, _ message: String) throws(URLPatternError) {
        if policy == .strict { throw URLPatternError(.tokenizer, message, offset: index) }
        addToken(.invalidChar, next: next, valueAt: valueAt)
    }
}
