/// `navpolicyd version` (also `--version` and `-V`).
package struct VersionCommand: ParsableCommand {
    package static let declaration = CommandDeclaration(
        name: "version", summary: "Print the version", discussion: "Prints 'navpolicyd VERSION'.",
        notes: "Exit status: 0.", options: [])

    package init(_ arguments: ParsedArguments) {}

    package func run(_ output: Output) -> Int32 {
        output.out("navpolicyd \(CommandLineTool.version)")
        return ExitCode.success
    }
}
