/// Everything the command line knows about one command, declared in one place: the parser,
/// help, the man page and the shell completions are all derived from it.
package struct CommandDeclaration: Sendable {
    package var name: String
    /// One line for the command list.
    package var summary: String
    /// What the command does, shown between the usage line and the options.
    package var discussion: String
    /// Shown after the options: signals, files, exit statuses.
    package var notes: String
    /// The command's own options, in help order (`--help` is added for every command).
    package var options: [OptionDeclaration]
    /// The operands after the options, if the command takes any.
    package var positional: PositionalDeclaration?
    /// Options of which at most (or exactly) one may be given.
    package var exclusiveGroups: [ExclusiveGroup]
    /// Appended to "unexpected argument" for a command without operands ("use --config FILE").
    package var unexpectedArgumentHint: String?

    package init(
        name: String, summary: String, discussion: String, notes: String, options: [OptionDeclaration],
        positional: PositionalDeclaration? = nil, exclusiveGroups: [ExclusiveGroup] = [],
        unexpectedArgumentHint: String? = nil
    ) {
        self.unexpectedArgumentHint = unexpectedArgumentHint
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.notes = notes
        self.options = options
        self.positional = positional
        self.exclusiveGroups = exclusiveGroups
    }

    /// The declared options and `--help`.
    package var allOptions: [OptionDeclaration] { options + [OptionDeclaration.help] }

    package func option(named name: String) -> OptionDeclaration? { allOptions.first { $0.name == name } }

    package func option(short: Character) -> OptionDeclaration? { allOptions.first { $0.shortName == short } }
}

/// The operands of a command (`URL`, `CASES.json`).
package struct PositionalDeclaration: Sendable {
    package enum Arity: Sendable, Equatable {
        case exactlyOne, oneOrMore, zeroOrMore
    }

    /// The name in the synopsis (`URL`).
    package var name: String
    package var help: String
    package var arity: Arity
    package var kind: ValueKind
    /// The usage error when the operand is missing ("missing the URL to check").
    package var missingMessage: String

    package init(name: String, help: String, arity: Arity, kind: ValueKind = .text, missingMessage: String) {
        self.name = name
        self.help = help
        self.arity = arity
        self.kind = kind
        self.missingMessage = missingMessage
    }

    /// `URL`, `URL...` or `[URL...]`.
    var synopsis: String {
        switch arity {
        case .exactlyOne: name
        case .oneOrMore: name + "..."
        case .zeroOrMore: "[\(name)...]"
        }
    }
}

/// Options that exclude each other: at most one of them, or exactly one when `isRequired`.
package struct ExclusiveGroup: Sendable {
    package var names: [String]
    package var isRequired: Bool

    package init(_ names: [String], isRequired: Bool) {
        self.names = names
        self.isRequired = isRequired
    }
}
