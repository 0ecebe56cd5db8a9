/// One option of a command, declared once: parsing, help, the man page and completions all read it.
package struct OptionDeclaration: Sendable {
    /// The long name without its dashes (`config` for `--config`).
    package var name: String
    /// An optional single-letter alias (`h` for `-h`).
    package var shortName: Character?
    /// The value's name in help (`FILE`); nil makes the option a flag that takes no value.
    package var placeholder: String?
    package var kind: ValueKind
    /// One sentence for help and the man page.
    package var help: String
    /// Used when the option is absent; shown in help.
    package var defaultValue: String?
    /// The command cannot run without it.
    package var isRequired: Bool
    /// May be given more than once (every value is kept); other options given twice are an error,
    /// because "which one wins" is a guess the user should not have to make.
    package var isRepeatable: Bool

    package init(
        name: String, shortName: Character? = nil, placeholder: String?, kind: ValueKind, help: String,
        defaultValue: String? = nil, isRequired: Bool = false, isRepeatable: Bool = false
    ) {
        self.name = name
        self.shortName = shortName
        self.placeholder = placeholder
        self.kind = kind
        self.help = help
        self.defaultValue = defaultValue
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
    }

    package var isFlag: Bool { placeholder == nil }

    /// `--name`.
    package var longForm: String { "--" + name }

    /// `--name VALUE` or `--name`, as the synopsis and help show it.
    package var synopsis: String { placeholder.map { "\(longForm) \($0)" } ?? longForm }

    /// The built-in help flag every command accepts.
    static let help = OptionDeclaration(
        name: "help", shortName: "h", placeholder: nil, kind: .text, help: "show this help and exit")
}

/// A typed handle on a value option: declares it and reads its value back with the right type.
package struct Option<Value: Sendable>: Sendable {
    package let declaration: OptionDeclaration
    let extract: @Sendable (ParsedValue) -> Value?
}

extension Option where Value == String {
    /// An option whose value is text of `kind` (text, file, address, or a choice).
    package static func text(
        _ name: String, _ placeholder: String, kind: ValueKind = .text, help: String, default defaultValue: String? = nil,
        required: Bool = false
    ) -> Option {
        Option(
            declaration: OptionDeclaration(
                name: name, placeholder: placeholder, kind: kind, help: help, defaultValue: defaultValue,
                isRequired: required),
            extract: { if case .text(let text) = $0 { text } else { nil } })
    }
}

extension Option where Value == Int {
    /// A whole-number option; `phrase` says the range in words for the error message.
    package static func integer(
        _ name: String, _ placeholder: String, in range: ClosedRange<Int>, phrase: String, help: String,
        default defaultValue: Int? = nil
    ) -> Option {
        Option(
            declaration: OptionDeclaration(
                name: name, placeholder: placeholder, kind: .integer(range, phrase: phrase), help: help,
                defaultValue: defaultValue.map(String.init)),
            extract: { if case .integer(let number) = $0 { number } else { nil } })
    }
}

extension Option where Value == Double {
    /// A decimal option; `phrase` says the range in words for the error message.
    package static func decimal(
        _ name: String, _ placeholder: String, in range: DecimalRange, phrase: String, help: String,
        default defaultValue: String? = nil
    ) -> Option {
        Option(
            declaration: OptionDeclaration(
                name: name, placeholder: placeholder, kind: .decimal(range, phrase: phrase), help: help,
                defaultValue: defaultValue),
            extract: { if case .decimal(let number) = $0 { number } else { nil } })
    }
}

/// A typed handle on a boolean flag.
package struct Flag: Sendable {
    package let declaration: OptionDeclaration

    package init(_ name: String, help: String) {
        declaration = OptionDeclaration(name: name, placeholder: nil, kind: .text, help: help)
    }
}
