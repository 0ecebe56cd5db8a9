/// What an option's value must be. The parser checks it, so a command only ever sees values of
/// the right shape; help, the man page and completions describe it from the same case.
package enum ValueKind: Sendable, Equatable {
    /// Any text (a method, a URL): the command checks it where the rules live.
    case text
    /// A path: completions offer file names.
    case file
    /// `HOST:PORT`: the command checks it with `ListenAddress`, which knows the address forms.
    case address
    /// One of a fixed list, checked by the parser.
    case choice([String])
    /// One of a fixed list that the command checks itself, because the rules (and their message)
    /// belong to the core; the list still feeds help and completions.
    case commandCheckedChoice([String])
    /// The name of a navpolicyd command (for `help COMMAND`); completions offer the command names.
    case commandName
    /// A whole number in a range; `phrase` says it in words for errors ("a whole number from 0 to 100").
    case integer(ClosedRange<Int>, phrase: String)
    /// A decimal number in a range, optionally excluding its lower bound (a duration of 0 is no duration).
    case decimal(DecimalRange, phrase: String)

    /// The value in its typed form, or nil when the text is not a value of this kind.
    func convert(_ text: String) -> ParsedValue? {
        switch self {
        case .text, .file, .address, .commandCheckedChoice, .commandName:
            return .text(text)
        case .choice(let values):
            return values.contains(text) ? .text(text) : nil
        case .integer(let range, _):
            guard let number = Int(text), range.contains(number) else { return nil }
            return .integer(number)
        case .decimal(let range, _):
            guard let number = Double(text), range.contains(number) else { return nil }
            return .decimal(number)
        }
    }

    /// How an error message says what was expected: "text or json", "a whole number from 0 to 100".
    var phrase: String {
        switch self {
        case .text: "a value"
        case .file: "a file path"
        case .address: "HOST:PORT"
        case .commandName: "a command name"
        case .choice(let values), .commandCheckedChoice(let values): Self.alternatives(values)
        case .integer(_, let phrase), .decimal(_, let phrase): phrase
        }
    }

    /// The fixed values a shell can complete, if any.
    var completionValues: [String] {
        switch self {
        case .choice(let values), .commandCheckedChoice(let values): values
        case .commandName: CommandLineTool.declarations.map(\.name)
        default: []
        }
    }

    /// "a", "a or b", "a, b or c".
    static func alternatives(_ values: [String]) -> String {
        guard let last = values.last else { return "" }
        let head = values.dropLast()
        return head.isEmpty ? last : head.joined(separator: ", ") + " or " + last
    }
}

/// A closed-or-half-open range of decimals: `0...100`, or `(0, 3600]` for a duration.
package struct DecimalRange: Sendable, Equatable {
    package var lowerBound: Double
    package var includesLowerBound: Bool
    package var upperBound: Double

    package init(_ lowerBound: Double, _ upperBound: Double, includesLowerBound: Bool = true) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.includesLowerBound = includesLowerBound
    }

    func contains(_ value: Double) -> Bool {
        (includesLowerBound ? value >= lowerBound : value > lowerBound) && value <= upperBound
    }
}

/// An option value after the parser checked it against its `ValueKind`.
package enum ParsedValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case decimal(Double)
}
