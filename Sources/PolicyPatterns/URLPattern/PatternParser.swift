/// "Parse a pattern string" (https://urlpattern.spec.whatwg.org/#parsing): a component's pattern
/// string into its part list, canonicalizing every fixed-text piece with the component's
/// encoding callback.
struct PatternParser {
    /// Validates and canonicalizes one fixed-text piece of a component.
    typealias EncodingCallback = (String) throws(URLPatternError) -> String

    private let tokens: [PatternToken]
    private let encode: EncodingCallback
    private let options: PatternOptions
    private let segmentWildcardRegexp: String
    private var parts: [PatternPart] = []
    private var pendingFixedValue = ""
    private var index = 0
    private var nextNumericName = 0

    /// Parses `input` into its part list.
    static func parse(
        _ input: String, options: PatternOptions, encode: @escaping EncodingCallback
    ) throws(URLPatternError) -> [PatternPart] {
        var parser = PatternParser(
            tokens: try PatternTokenizer.tokenize(input, policy: .strict), encode: encode, options: options,
            segmentWildcardRegexp: options.segmentWildcardRegexp)
        try parser.run()
        return parser.parts
    }

    private init(
        tokens: [PatternToken], encode: @escaping EncodingCallback, options: PatternOptions,
        segmentWildcardRegexp: String
    ) {
        self.tokens = tokens
        self.encode = encode
        self.options = options
        self.segmentWildcardRegexp = segmentWildcardRegexp
    }

    private mutating func run() throws(URLPatternError) {
        while index < tokens.count {
            let charToken = tryConsume(.char)
            var nameToken = tryConsume(.name)
            var regexpOrWildcard = tryConsumeRegexpOrWildcard(nameToken: nameToken)
            if nameToken != nil || regexpOrWildcard != nil {
                var prefix = charToken?.value ?? ""
                if !prefix.isEmpty, prefix != options.prefix {
                    pendingFixedValue += prefix
                    prefix = ""
                }
                try addPendingFixedValue()
                let modifier = tryConsumeModifier()
                try addPart(
                    prefix: prefix, name: nameToken, regexpOrWildcard: regexpOrWildcard, suffix: "", modifier: modifier)
                continue
            }
            if let fixed = charToken ?? tryConsume(.escapedChar) {
                pendingFixedValue += fixed.value
                continue
            }
            if tryConsume(.open) != nil {
                let prefix = consumeText()
                nameToken = tryConsume(.name)
                regexpOrWildcard = tryConsumeRegexpOrWildcard(nameToken: nameToken)
                let suffix = consumeText()
                try consumeRequired(.close, "a '{' group must be closed by '}'")
                let modifier = tryConsumeModifier()
                try addPart(
                    prefix: prefix, name: nameToken, regexpOrWildcard: regexpOrWildcard, suffix: suffix,
                    modifier: modifier)
                continue
            }
            try addPendingFixedValue()
            try consumeRequired(.end, "unexpected character")
        }
    }

    private mutating func tryConsume(_ kind: PatternToken.Kind) -> PatternToken? {
        guard index < tokens.count, tokens[index].kind == kind else { return nil }
        index += 1
        return tokens[index - 1]
    }

    private mutating func tryConsumeRegexpOrWildcard(nameToken: PatternToken?) -> PatternToken? {
        let token = tryConsume(.regexp)
        if nameToken == nil, token == nil { return tryConsume(.asterisk) }
        return token
    }

    private mutating func tryConsumeModifier() -> PatternToken? {
        tryConsume(.otherModifier) ?? tryConsume(.asterisk)
    }

    private mutating func consumeText() -> String {
        var result = ""
        while let token = tryConsume(.char) ?? tryConsume(.escapedChar) { result += token.value }
        return result
    }

    private mutating func consumeRequired(_ kind: PatternToken.Kind, _ message: String) throws(URLPatternError) {
        guard tryConsume(kind) == nil else { return }
        let token = index < tokens.count ? tokens[index] : nil
        let found = token.map { $0.kind == .end ? "the end of the pattern" : "'\($0.value)'" } ?? "nothing"
        throw URLPatternError(.parser, "\(message) (found \(found))", offset: token?.index)
    }

    private mutating func addPendingFixedValue() throws(URLPatternError) {
        guard !pendingFixedValue.isEmpty else { return }
        let encoded = try encode(pendingFixedValue)
        pendingFixedValue = ""
        parts.append(PatternPart(kind: .fixedText, value: encoded, modifier: .none))
    }

    private mutating func addPart(
        prefix: String, name nameToken: PatternToken?, regexpOrWildcard: PatternToken?, suffix: String,
        modifier modifierToken: PatternToken?
    ) throws(URLPatternError) {
        let modifier: PatternPart.Modifier =
            switch modifierToken?.value {
            case "?": .optional
            case "*": .zeroOrMore
            case "+": .oneOrMore
            default: .none
            }
        if nameToken == nil, regexpOrWildcard == nil, modifier == .none {
            pendingFixedValue += prefix
            return
        }
        try addPendingFixedValue()
        if nameToken == nil, regexpOrWildcard == nil {
            if prefix.isEmpty { return }
            parts.append(PatternPart(kind: .fixedText, value: try encode(prefix), modifier: modifier))
            return
        }
        var regexpValue: String
        if let regexpOrWildcard {
            regexpValue = regexpOrWildcard.kind == .asterisk ? PatternOptions.fullWildcardRegexp : regexpOrWildcard.value
        } else {
            regexpValue = segmentWildcardRegexp
        }
        var kind = PatternPart.Kind.regexp
        if regexpValue == segmentWildcardRegexp {
            kind = .segmentWildcard
            regexpValue = ""
        } else if regexpValue == PatternOptions.fullWildcardRegexp {
            kind = .fullWildcard
            regexpValue = ""
        }
        var name = ""
        if let nameToken {
            name = nameToken.value
        } else if regexpOrWildcard != nil {
            name = String(nextNumericName)
            nextNumericName += 1
        }
        if parts.contains(where: { $0.name == name }) {
            throw URLPatternError(
                .parser, "the group name '\(name)' is used twice", offset: nameToken?.index ?? regexpOrWildcard?.index)
        }
        parts.append(
            PatternPart(
                kind: kind, value: regexpValue, modifier: modifier, name: name, prefix: try encode(prefix),
                suffix: try encode(suffix)))
    }
}
