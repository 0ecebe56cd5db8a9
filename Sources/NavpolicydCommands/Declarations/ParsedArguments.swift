/// A command line after parsing: every value already checked against its declaration.
package struct ParsedArguments: Sendable {
    /// Values given on the command line, in order, by option name.
    var given: [String: [ParsedValue]] = [:]
    /// Declared defaults, used when an option is absent.
    var defaults: [String: ParsedValue] = [:]
    var flags: Set<String> = []
    package var positionals: [String] = []

    /// The option's value: the one given, else its declared default.
    package subscript<Value>(option: Option<Value>) -> Value? {
        let name = option.declaration.name
        return (given[name]?.last ?? defaults[name]).flatMap(option.extract)
    }

    /// Every value of a repeatable option, in command-line order.
    package func all<Value>(_ option: Option<Value>) -> [Value] {
        (given[option.declaration.name] ?? []).compactMap(option.extract)
    }

    package subscript(flag: Flag) -> Bool { flags.contains(flag.declaration.name) }

    /// Whether the option was on the command line (not merely defaulted).
    package func isGiven(_ name: String) -> Bool { given[name] != nil || flags.contains(name) }
}
