/// `navpolicyd help [COMMAND]`, `navpolicyd help --man`: help generated from the declarations.
package struct HelpCommand: ParsableCommand {
    static let man = Flag("man", help: "write the manual page (roff) for every command to stdout")

    package static let declaration = CommandDeclaration(
        name: "help",
        summary: "Show the help of the tool or of one command; --man writes the manual page",
        discussion: """
            Without a command, lists the commands. With one, prints that command's help (the same
            as 'navpolicyd COMMAND --help'). With --man, writes the navpolicyd(1) manual page in roff:
              navpolicyd help --man > navpolicyd.1
              navpolicyd help --man | man -l -
            """,
        notes: "Exit status: 0; 2 for an unknown command.",
        options: [man.declaration],
        positional: PositionalDeclaration(
            name: "COMMAND", help: "the command to explain", arity: .zeroOrMore,
            kind: .commandName,
            missingMessage: "missing the command"))

    package var topic: String?
    package var writesManPage: Bool
    private var extraTopics: [String]

    package init(_ arguments: ParsedArguments) {
        topic = arguments.positionals.first
        extraTopics = Array(arguments.positionals.dropFirst())
        writesManPage = arguments[Self.man]
    }

    package init(topic: String?) {
        self.topic = topic
        extraTopics = []
        writesManPage = false
    }

    package mutating func validate() throws(CommandError) {
        if let extra = extraTopics.first { throw .usage("unexpected argument '\(extra)'") }
        if let topic, CommandLineTool.command(named: topic) == nil {
            let names = CommandLineTool.declarations.map(\.name)
            let hint = Suggestion.closest(to: topic, in: names).map { "; did you mean '\($0)'?" } ?? ""
            throw .invalidValue("unknown command '\(topic)'\(hint) (commands: \(names.joined(separator: ", ")))")
        }
    }

    package func run(_ output: Output) -> Int32 {
        if writesManPage {
            output.out(ManPage.render(CommandLineTool.declarations))
        } else if let topic, let command = CommandLineTool.command(named: topic) {
            output.out(HelpText.render(command.declaration))
        } else {
            output.out(CommandLineTool.overview)
        }
        return ExitCode.success
    }
}
