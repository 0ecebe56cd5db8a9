/// `navpolicyd completions bash|zsh|fish`: a completion script generated from the declarations.
package struct CompletionsCommand: ParsableCommand {
    package static let declaration = CommandDeclaration(
        name: "completions",
        summary: "Print a shell completion script (bash, zsh or fish)",
        discussion: """
            Prints a script that completes commands, options and their fixed values. Install it, e.g.:
              navpolicyd completions bash > /usr/share/bash-completion/completions/navpolicyd
              navpolicyd completions zsh > "${fpath[1]}/_navpolicyd"
              navpolicyd completions fish > ~/.config/fish/completions/navpolicyd.fish
            """,
        notes: "Exit status: 0; 2 for an unknown shell.",
        options: [],
        positional: PositionalDeclaration(
            name: "SHELL", help: "bash, zsh or fish", arity: .exactlyOne, kind: .choice(Shell.allCases.map(\.rawValue)),
            missingMessage: "missing the shell (bash, zsh or fish)"))

    package enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    package var shell: Shell

    package init(_ arguments: ParsedArguments) {
        // The parser has checked the operand against the choices; bash is never reached by a user.
        shell = arguments.positionals.first.flatMap(Shell.init(rawValue:)) ?? .bash
    }

    package func run(_ output: Output) -> Int32 {
        let declarations = CommandLineTool.declarations
        switch shell {
        case .bash: output.out(CompletionScript.bash(declarations))
        case .zsh: output.out(CompletionScript.zsh(declarations))
        case .fish: output.out(CompletionScript.fish(declarations))
        }
        return ExitCode.success
    }
}
