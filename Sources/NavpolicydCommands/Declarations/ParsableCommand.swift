/// A command in the swift-argument-parser shape: declared options, a value built from the parsed
/// arguments, `validate()` for the rules between them (no I/O), and `run` for the work.
package protocol ParsableCommand: Sendable {
    /// The declaration parsing, help, the man page and completions are derived from.
    static var declaration: CommandDeclaration { get }
    /// Reads the typed values; parsing has already checked each one against its declaration.
    init(_ arguments: ParsedArguments)
    /// Checks what no single declaration can (one flag needing another, values the core checks).
    mutating func validate() throws(CommandError)
    /// Does the work; returns the exit status.
    func run(_ output: Output) -> Int32
}

extension ParsableCommand {
    package mutating func validate() throws(CommandError) {}

    /// Parses and validates `arguments`, without running anything: what tests call in-process.
    package static func parse(_ arguments: [String]) throws(CommandError) -> Self {
        var command = Self(try ArgumentParser(declaration).parse(arguments))
        try command.validate()
        return command
    }
}
