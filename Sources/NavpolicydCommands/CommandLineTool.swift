/// Dispatches `navpolicyd <command> …`: finds the command, parses and validates its arguments
/// against its declaration, and runs it. Exit statuses: 0 success, 1 the answer is "no",
/// 2 usage or input errors (with a message on stderr).
public enum CommandLineTool {
    package static let version = "0.1.0"

    /// Every command, in the order the overview lists them.
    package static var commands: [any ParsableCommand.Type] {
        [
            ServeCommand.self, CheckCommand.self, ValidateCommand.self, TestCommand.self, DiffCommand.self,
            AnalyzeCommand.self, CompileCommand.self, BundleCommand.self, CanonicalizeCommand.self, URLPatternCommand.self,
            BenchCommand.self, IntakeCommand.self, CompletionsCommand.self,
            HelpCommand.self,
            VersionCommand.self,
        ]
    }

    package static var declarations: [CommandDeclaration] { commands.map { $0.declaration } }

    package static func command(named name: String) -> (any ParsableCommand.Type)? {
        commands.first { $0.declaration.name == name }
    }

    /// The top-level help: the command list and the rules shared by every command.
    package static var overview: String {
        var lines = [
            "navpolicyd \(version) — web-navigation policy decisions for hybrid apps",
            "",
            "Usage: navpolicyd <command> [options]",
            "",
            "Commands:",
        ]
        for declaration in declarations {
            lines.append("  " + declaration.name.padding(toLength: 14, withPad: " ", startingAt: 0) + declaration.summary)
        }
        lines += [
            "",
            "check, validate, test and serve read the policy from --config FILE, else $NAVPOLICY_CONFIG,",
            "else \(ConfigLoader.defaultPath) (relative to the working directory).",
            "Run 'navpolicyd <command> --help' for a command's options.",
            "Exit status: 0 success, 1 validation or test failures, 2 invalid input or usage.",
        ]
        return lines.joined(separator: "\n")
    }

    /// Runs the command line (without the program name) on the process's stdout and stderr.
    /// - Returns: the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        run(arguments, output: .standard)
    }

    package static func run(_ arguments: [String], output: Output) -> Int32 {
        switch parse(arguments) {
        case .success(let command):
            return command.run(output)
        case .failure(let failure):
            output.err(failure.text)
            return ExitCode.usage
        }
    }

    /// Finds, parses and validates the command without running it: what the parse tests call.
    package static func parse(_ arguments: [String]) -> Result<any ParsableCommand, CommandLineFailure> {
        guard let first = arguments.first else {
            return .failure(CommandLineFailure(command: nil, error: .usage(overview)))
        }
        var name = first
        var rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h": (name, rest) = (HelpCommand.declaration.name, [])
        case "--version", "-V": (name, rest) = (VersionCommand.declaration.name, [])
        default: break
        }
        guard let type = command(named: name) else {
            let hint = Suggestion.closest(to: name, in: declarations.map(\.name)).map { "; did you mean '\($0)'?" } ?? "."
            return .failure(
                CommandLineFailure(
                    command: nil,
                    error: .usage("navpolicyd: unknown command '\(name)'\(hint) Run 'navpolicyd --help' for the list.")))
        }
        // Help is honoured anywhere before `--`, the way users type it, even next to a mistake.
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .success(HelpCommand(topic: type.declaration.name))
        }
        do {
            return .success(try type.parse(rest))
        } catch {
            return .failure(CommandLineFailure(command: name, error: error))
        }
    }
}

/// A command line that cannot run, and what to print about it.
package struct CommandLineFailure: Error {
    /// The command the error belongs to; nil for the top level (no or unknown command).
    package var command: String?
    package var error: CommandError

    /// The stderr text: usage errors point to the command's help.
    package var text: String {
        guard let command else { return error.message }
        switch error {
        case .usage(let message): return "navpolicyd \(command): \(message)\nRun 'navpolicyd \(command) --help' for usage."
        case .invalidValue(let message): return "navpolicyd \(command): \(message)"
        }
    }
}

extension CommandLineTool {
    /// navpolicyd(1) for `declarations`, in roff.
    package static func manPage(_ declarations: [CommandDeclaration]) -> String { ManPage.render(declarations) }

    /// The completion script of `shell` for `declarations`.
    package static func completionScript(_ shell: CompletionsCommand.Shell, _ declarations: [CommandDeclaration]) -> String {
        switch shell {
        case .bash: CompletionScript.bash(declarations)
        case .zsh: CompletionScript.zsh(declarations)
        case .fish: CompletionScript.fish(declarations)
        }
    }
}
