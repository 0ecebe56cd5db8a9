import NavigationPolicy

/// `navpolicyd check URL`: the decision for one navigation, as JSON on stdout.
enum CheckCommand {
    static let command = CommandLineTool.Command(
        name: "check",
        summary: "Decide one URL against the policy and print the decision JSON",
        usage: """
            Usage: navpolicyd check [--config FILE] [--method M] [--navigation-type T]
                                    [--target-frame main|sub] [--source-url U] [--explain] [--] URL

            Prints the decision object for the navigation:
              {"decision":"allow"|"cancel","handler":…,"action":…,"location":…,"url":…}
            URLs of every scheme are decided (javascript:, data:, file: too).

            Options:
              --config FILE          policy file (default: $NAVPOLICY_CONFIG or config/navpolicy.json)
              --method M             HTTP method (default GET)
              --navigation-type T    linkActivated | formSubmitted | backForward | reload |
                                     formResubmitted | other (default other)
              --target-frame F       main | sub (default main)
              --source-url U         the page that started the navigation
              --explain              add a "trace" of every handler consulted and why

            Exit status: 0 with a decision; 2 for an invalid URL, flag value or config.
            """,
        run: run)

    static let spec = ArgumentSpec(
        valueOptions: ["config", "method", "navigation-type", "target-frame", "source-url", ConfigLoader.maxBytesOption],
        flagOptions: ["explain"])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try spec.parse(arguments)
        } catch {
            return CommandLineTool.usageFailure("check", error, output: output)
        }
        guard parsed.positionals.count == 1, let url = parsed.positionals.first else {
            let problem =
                parsed.positionals.isEmpty ? "missing the URL to check" : "expected one URL, got \(parsed.positionals.count)"
            return CommandLineTool.usageFailure("check", UsageError(problem), output: output)
        }
        var request = NavigationRequest(url: url)
        do throws(NavigationRequestError) {
            if let method = parsed.value("method") { request.method = method }
            if let type = parsed.value("navigation-type") {
                request.navigationType = try NavigationRequest.navigationType(from: type)
            }
            if let frame = parsed.value("target-frame") {
                request.targetFrame = try NavigationRequest.targetFrame(from: frame)
            }
            request.sourceURL = parsed.value("source-url")
        } catch {
            output.err("navpolicyd check: \(flagName(for: error.field)): \(error.reason)")
            return ExitCode.usage
        }
        guard let maxConfigBytes = ConfigLoader.maxBytes(parsed, command: "check", output: output) else { return ExitCode.usage }
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(ConfigLoader.resolvePath(flag: parsed.value("config")), maxBytes: maxConfigBytes)
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        do {
            let decision = try policy.decide(request, explain: parsed.has("explain"))
            output.out(decision.jsonObject.serializedJSON)
            return ExitCode.success
        } catch {
            output.err("navpolicyd check: \(flagName(for: error.field)): \(error.reason)")
            return ExitCode.usage
        }
    }

    /// Names request fields the way this command's user typed them.
    private static func flagName(for field: String) -> String {
        switch field {
        case "url": "URL"
        case "method": "--method"
        case "navigationType": "--navigation-type"
        case "targetFrame": "--target-frame"
        case "sourceURL": "--source-url"
        default: field
        }
    }
}
