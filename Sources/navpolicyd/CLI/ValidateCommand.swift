import NavigationPolicy

/// `navpolicyd validate`: the chain in order, or every config error with its JSON pointer.
enum ValidateCommand {
    static let command = CommandLineTool.Command(
        name: "validate",
        summary: "Check a policy file and print its handler chain in order",
        usage: """
            Usage: navpolicyd validate [--config FILE]

            Prints the handler chain in order (name, type, match conditions in canonical form).
            When the file is invalid, prints every error with its JSON pointer, e.g.
              /handlers/2/match/hosts/0: "*.": empty host pattern

            Exit status: 0 valid; 1 invalid config; 2 unreadable file or bad usage.
            """,
        run: run)

    static let spec = ArgumentSpec(valueOptions: ["config"], flagOptions: [])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        do throws(UsageError) {
            parsed = try spec.parse(arguments)
            guard parsed.positionals.isEmpty else {
                throw UsageError("unexpected argument '\(parsed.positionals[0])' (use --config FILE)")
            }
        } catch {
            return CommandLineTool.usageFailure("validate", error, output: output)
        }
        let path = ConfigLoader.resolvePath(flag: parsed.value("config"))
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(path)
        } catch {
            ConfigLoader.report(error, to: output)
            if case .invalid = error { return ExitCode.failure }
            return ExitCode.usage
        }
        output.out("\(path): valid")
        output.out("defaultDecision: \(policy.defaultVerdict.rawValue)")
        output.out("handlers (\(policy.links.count), first match wins):")
        let nameWidth = min(24, policy.links.map(\.name.count).max() ?? 0)
        let typeWidth = policy.links.map(\.type.count).max() ?? 0
        for (index, link) in policy.links.enumerated() {
            let name = link.name.padding(toLength: max(nameWidth, link.name.count), withPad: " ", startingAt: 0)
            let type = link.type.padding(toLength: typeWidth, withPad: " ", startingAt: 0)
            output.out("  \(index + 1). \(name)  \(type)  \(link.matcher.summary)")
        }
        return ExitCode.success
    }
}
