/// Dispatches `navpolicyd <command> …` and owns the top-level help.
enum CommandLineTool {
    /// One subcommand: its name, one-line summary, help text and entry point.
    struct Command: Sendable {
        var name: String
        var summary: String
        var usage: String
        var run: @Sendable (_ arguments: [String], _ output: Output) -> Int32
    }

    static let version = "0.1.0"

    static let commands: [Command] = [
        ServeCommand.command,
        CheckCommand.command,
        ValidateCommand.command,
        TestCommand.command,
        DiffCommand.command,
        CanonicalizeCommand.command,
        BenchCommand.command,
        IntakeCommand.command,
    ]

    static var overview: String {
        var lines = [
            "navpolicyd \(version) — web-navigation policy decisions for hybrid apps",
            "",
            "Usage: navpolicyd <command> [options]",
            "",
            "Commands:",
        ]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 14, withPad: " ", startingAt: 0) + command.summary)
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

    static func run(_ arguments: [String], output: Output = .standard) -> Int32 {
        guard let first = arguments.first else {
            output.err(overview)
            return ExitCode.usage
        }
        switch first {
        case "--help", "-h":
            output.out(overview)
            return ExitCode.success
        case "--version":
            output.out("navpolicyd \(version)")
            return ExitCode.success
        case "help":
            guard let name = arguments.dropFirst().first else {
                output.out(overview)
                return ExitCode.success
            }
            guard let command = commands.first(where: { $0.name == name }) else {
                output.err("navpolicyd: unknown command '\(name)'\n\n\(overview)")
                return ExitCode.usage
            }
            output.out(command.usage)
            return ExitCode.success
        default:
            guard let command = commands.first(where: { $0.name == first }) else {
                output.err("navpolicyd: unknown command '\(first)'. Run 'navpolicyd --help' for the list.")
                return ExitCode.usage
            }
            let rest = Array(arguments.dropFirst())
            // Help is honoured anywhere before `--`, the way users type it.
            if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
                output.out(command.usage)
                return ExitCode.success
            }
            return command.run(rest, output)
        }
    }

    /// Prints a usage error with a pointer to the command's help.
    static func usageFailure(_ command: String, _ error: UsageError, output: Output) -> Int32 {
        output.err("navpolicyd \(command): \(error.message)\nRun 'navpolicyd \(command) --help' for usage.")
        return ExitCode.usage
    }
}
