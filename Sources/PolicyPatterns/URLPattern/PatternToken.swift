/// One token of a URLPattern pattern string (https://urlpattern.spec.whatwg.org/#tokens).
struct PatternToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `{`
        case open
        /// `}`
        case close
        /// `(…)`: the value is the regular expression between the parentheses.
        case regexp
        /// `:name`: the value is the name.
        case name
        /// Any other code point.
        case char
        /// `\x`: the value is the escaped code point.
        case escapedChar
        /// `?` or `+`.
        case otherModifier
        /// `*`
        case asterisk
        /// The end of the input.
        case end
        /// Only with the lenient policy: something the strict policy would refuse.
        case invalidChar
    }

    let kind: Kind
    /// Code point offset of the token's first code point in the input.
    let index: Int
    let value: String
}

/// How the tokenizer treats a malformed construct: refuse the pattern (`strict`, for component
/// patterns) or keep going with an `invalidChar` token (`lenient`, for the constructor string,
/// whose components are tokenized strictly again later).
enum TokenizePolicy: Sendable {
    case strict, lenient
}
