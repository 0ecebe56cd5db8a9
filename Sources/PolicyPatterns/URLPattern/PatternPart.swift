/// One part of a parsed pattern string (https://urlpattern.spec.whatwg.org/#parts).
package struct PatternPart: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Text matched literally.
        case fixedText
        /// A `(…)` regular expression group.
        case regexp
        /// `:name` alone: matches up to the next delimiter (one path segment, one host label).
        case segmentWildcard
        /// `*`: matches anything.
        case fullWildcard
    }

    package enum Modifier: Sendable, Equatable {
        case none, optional, zeroOrMore, oneOrMore

        /// "Convert a modifier to a string".
        var text: String {
            switch self {
            case .none: ""
            case .optional: "?"
            case .zeroOrMore: "*"
            case .oneOrMore: "+"
            }
        }
    }

    package var kind: Kind
    /// The fixed text, or the regexp group's expression; empty for wildcards.
    package var value: String
    package var modifier: Modifier
    /// The group name (`:name`) or its number ("0", "1", …); empty for fixed text.
    var name = ""
    package var prefix = ""
    package var suffix = ""
}

/// Settings of the pattern-string dialect for one component
/// (https://urlpattern.spec.whatwg.org/#options-header).
package struct PatternOptions: Sendable {
    /// The separator a `:name` group stops at ("" = none, "." for hostnames, "/" for paths).
    var delimiter: String
    /// The code point that becomes a group's optional prefix ("/" for paths, else "").
    var prefix: String
    package var ignoreCase = false

    static let `default` = PatternOptions(delimiter: "", prefix: "")
    static let hostname = PatternOptions(delimiter: ".", prefix: "")
    static let pathname = PatternOptions(delimiter: "/", prefix: "/")

    /// "Generate a segment wildcard regexp".
    var segmentWildcardRegexp: String { "[^" + PatternEscaping.regexp(delimiter) + "]+?" }

    /// The full wildcard regexp value.
    static let fullWildcardRegexp = ".*"
}
