/// "Generate a regular expression and name list"
/// (https://urlpattern.spec.whatwg.org/#converting-part-lists-to-regular-expressions).
enum PatternRegexpGeneration {
    /// The anchored regular expression a part list matches with, and the names of its capture
    /// groups in order (group `n` of the expression is `names[n - 1]`).
    static func generate(_ parts: [PatternPart], options: PatternOptions) -> (regexp: String, names: [String]) {
        var result = "^"
        var names: [String] = []
        for part in parts {
            if part.kind == .fixedText {
                if part.modifier == .none {
                    result += PatternEscaping.regexp(part.value)
                } else {
                    result += "(?:" + PatternEscaping.regexp(part.value) + ")" + part.modifier.text
                }
                continue
            }
            names.append(part.name)
            let value: String =
                switch part.kind {
                case .segmentWildcard: options.segmentWildcardRegexp
                case .fullWildcard: PatternOptions.fullWildcardRegexp
                case .regexp, .fixedText: part.value
                }
            if part.prefix.isEmpty, part.suffix.isEmpty {
                if part.modifier == .none || part.modifier == .optional {
                    result += "(" + value + ")" + part.modifier.text
                } else {
                    result += "((?:" + value + ")" + part.modifier.text + ")"
                }
                continue
            }
            let prefix = PatternEscaping.regexp(part.prefix)
            let suffix = PatternEscaping.regexp(part.suffix)
            if part.modifier == .none || part.modifier == .optional {
                result += "(?:" + prefix + "(" + value + ")" + suffix + ")" + part.modifier.text
                continue
            }
            result += "(?:" + prefix + "((?:" + value + ")(?:" + suffix + prefix + "(?:" + value + "))*)" + suffix + ")"
            if part.modifier == .zeroOrMore { result += "?" }
        }
        return (result + "$", names)
    }
}
