package import NavigationPolicy
import PolicyService

/// `navpolicyd check URL`: the decision for one navigation, as JSON on stdout.
package struct CheckCommand: ParsableCommand {
    static let method = Option.text("method", "M", help: "HTTP method", default: "GET")
    static let navigationType = Option.text(
        "navigation-type", "T", kind: .commandCheckedChoice(NavigationType.allCases.map(\.rawValue)),
        help: NavigationType.allCases.map(\.rawValue).joined(separator: " | "), default: "other")
    static let targetFrame = Option.text(
        "target-frame", "main|sub", kind: .commandCheckedChoice(["main", "sub"]), help: "main or sub", default: "main")
    static let sourceURL = Option.text("source-url", "U", help: "the page that started the navigation")
    static let explain = Flag("explain", help: "add a \"trace\" of every handler consulted and why")
    static let format = OutputFormat.option(default: .json, text: "a table, coloured on a terminal")

    package static let declaration = CommandDeclaration(
        name: "check",
        summary: "Decide one URL against the policy and print the decision JSON",
        discussion: """
            Prints the decision object for the navigation:
              {"decision":"allow"|"cancel","handler":…,"action":…,"location":…,"url":…}
            URLs of every scheme are decided (javascript:, data:, file: too).
            """,
        notes: "Exit status: 0 with a decision; 2 for an invalid URL, flag value or config.",
        options: [
            ConfigOptions.config.declaration, ConfigOptions.maxBytes.declaration, method.declaration, navigationType.declaration,
            targetFrame.declaration,
            sourceURL.declaration, explain.declaration, format.declaration,
        ] + BundleInput.declarations,
        positional: PositionalDeclaration(
            name: "URL", help: "the URL to decide (after -- when it starts with -)", arity: .exactlyOne,
            missingMessage: "missing the URL to check"))

    package var configPath: String?
    /// `--bundle FILE`: decide with the bundle an app ships instead of a config.
    var bundleInput: BundleInput?
    private var bundleKeyOptionsGiven: Bool
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var request: NavigationRequest
    package var explains: Bool
    package var format: OutputFormat
    private var navigationTypeText: String?
    private var targetFrameText: String?

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        bundleInput = BundleInput.parse(arguments)
        bundleKeyOptionsGiven = BundleInput.keyOptionsGiven(arguments)
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        request = NavigationRequest(url: arguments.positionals.first ?? "")
        request.method = arguments[Self.method] ?? "GET"
        request.sourceURL = arguments[Self.sourceURL]
        navigationTypeText = arguments[Self.navigationType]
        targetFrameText = arguments[Self.targetFrame]
        explains = arguments[Self.explain]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .json
    }

    /// The navigation type and frame are checked by the core, with its message and list of values.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
        try BundleInput.validate(bundleInput, keyOptionsGiven: bundleKeyOptionsGiven, configGiven: configPath != nil)
        do throws(NavigationRequestError) {
            if let navigationTypeText { request.navigationType = try NavigationRequest.navigationType(from: navigationTypeText) }
            if let targetFrameText { request.targetFrame = try NavigationRequest.targetFrame(from: targetFrameText) }
        } catch {
            throw .invalidValue("\(Self.flagName(for: error.field)): \(error.reason)")
        }
    }

    package func run(_ output: Output) -> Int32 {
        guard
            let policy = BundleInput.policy(
                bundle: bundleInput, configPath: configPath, maxConfigBytes: maxConfigBytes, command: "check",
                output: output)
        else { return ExitCode.usage }
        do {
            let decision = try policy.decide(request, explain: explains)
            switch format {
            case .json: output.out(decision.jsonObject.serializedJSON)
            case .text: DecisionText.print(decision, to: output)
            }
            return ExitCode.success
        } catch {
            output.err("navpolicyd check: \(Self.flagName(for: error.field)): \(error.reason)")
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
