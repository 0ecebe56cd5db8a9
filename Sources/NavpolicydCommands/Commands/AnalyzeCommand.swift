import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import PolicyService

/// `navpolicyd analyze`: proves what a chain does — unreachable handlers, equivalence of two
/// chains with counterexamples, and whether any request of a kind can reach a decision.
package struct AnalyzeCommand: ParsableCommand {
    static let config = ConfigOptions.requiredConfig("FILE", help: "the policy to analyze")
    static let against = Option.text(
        "against", "OTHER.json", kind: .file,
        help: "compare with this policy: exit 0 when both decide every request alike, 1 with counterexamples")
    static let compare = Option.text(
        "compare", "handler", help: "with --against, also require the same deciding handler (the only value: handler)")
    static let canReach = Option.text(
        "can-reach", "TARGET",
        help: "allow, cancel or a handler name (handler:NAME for one named allow or cancel): can any request reach it?")
    static let host = Option.text(
        "host", "HOST",
        help: "with --can-reach, only requests whose host this hosts entry matches (name, *.suffix, range, @class)")
    static let pathPattern = Option.text(
        "path-pattern", "PATTERN", help: "with --can-reach, only requests whose path this pathPatterns entry matches")
    static let urlPattern = Option.text(
        "url-pattern", "PATTERN", help: "with --can-reach, only requests whose URL this urlPatterns entry matches")
    static let match = Option.text(
        "match", "JSON", help: "with --can-reach, only requests this match object matches ({\"methods\": [\"POST\"]}, …)")
    static let maxSteps = Option.integer(
        "max-steps", "N", in: 1...(1 << 50), phrase: "a whole number of at least 1",
        help: "the run's step bound; answers past it are unknown (exit 3)", default: PolicyAnalysis.Limits().steps)
    static let format = OutputFormat.option(default: .text, text: "one line per answer")

    package static let declaration = CommandDeclaration(
        name: "analyze",
        summary: "Prove what a policy does: unreachable handlers, equivalence, what can reach a decision",
        discussion: """
            Without --against or --can-reach: for every handler, whether any request reaches it
            (with a witness request) or which earlier handlers together match every request it
            matches. With --against: whether the two policies give the same decision, action and
            location for every request, with one counterexample per region where they differ.
            With --can-reach: whether any request (within --host, --path-pattern, --match) is
            decided allow or cancel, or reaches the handler, with a witness or a proof of none.
            Every witness and counterexample is decided again by the engine before it is printed;
            what cannot be decided exactly (pathPatterns with "*" inside or "?") is "unknown".
            """,
        notes: """
            Exit status: 0 every handler reachable, equivalent, or no request reaches the target;
            1 an unreachable handler, not equivalent, or a request reaches the target;
            2 unreadable or invalid input, bad usage; 3 an answer is unknown (and none is 1).
            """,
        options: [
            config.declaration, ConfigOptions.maxBytes.declaration, against.declaration, compare.declaration,
            canReach.declaration, host.declaration, pathPattern.declaration, urlPattern.declaration, match.declaration,
            maxSteps.declaration, format.declaration,
        ],
        exclusiveGroups: [ExclusiveGroup(["against", "can-reach"], isRequired: false)])

    package var configPath: String
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var againstPath: String?
    package var comparesHandlers: Bool
    private var compareText: String?
    package var target: String?
    var scope: JSONObject = [:]
    private var hostText: String?
    private var patternText: String?
    private var urlPatternText: String?
    private var matchText: String?
    var format: OutputFormat
    /// The bound of the one step budget of the run (``PolicyAnalysis/Limits/steps``).
    var limits = PolicyAnalysis.Limits()

    /// Exit status 3: the analysis could not decide an answer exactly.
    static let unknownStatus: Int32 = 3

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[Self.config] ?? ""
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        againstPath = arguments[Self.against]
        compareText = arguments[Self.compare]
        comparesHandlers = compareText == "handler"
        target = arguments[Self.canReach]
        hostText = arguments[Self.host]
        patternText = arguments[Self.pathPattern]
        urlPatternText = arguments[Self.urlPattern]
        matchText = arguments[Self.match]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .text
        if let steps = arguments[Self.maxSteps] { limits.steps = steps }
    }

    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
        if let compareText, compareText != "handler" {
            throw .usage("--compare takes \"handler\", not \"\(compareText)\"")
        }
        // The parser's errors already start "navpolicyd analyze:"; these must not repeat it.
        if let target, target.isEmpty || target == "handler:" {
            throw .usage("--can-reach takes allow, cancel or a handler name (handler:NAME), not an empty name")
        }
        if compareText != nil, againstPath == nil { throw .usage("--compare needs --against") }
        if target == nil, hostText != nil || patternText != nil || urlPatternText != nil || matchText != nil {
            throw .usage("--host, --path-pattern, --url-pattern and --match scope a query: add --can-reach")
        }
        if let matchText {
            guard case .object(let object)? = try? JSONParser().parse(matchText) else {
                throw .usage("--match takes a JSON object, e.g. {\"methods\": [\"POST\"]}")
            }
            scope = object
        }
        if let hostText { scope.append("hosts", .array([.string(hostText)])) }
        if let patternText { scope.append("pathPatterns", .array([.string(patternText)])) }
        if let urlPatternText { scope.append("urlPatterns", .array([.string(urlPatternText)])) }
    }

    package func run(_ output: Output) -> Int32 {
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(configPath, maxBytes: maxConfigBytes)
        } catch {
            ConfigLoader.report(error, command: "analyze", subject: { "--config \($0)" }, to: output)
            return ExitCode.usage
        }
        if let againstPath {
            let other: CompiledPolicy
            do {
                other = try ConfigLoader.load(againstPath, maxBytes: maxConfigBytes)
            } catch {
                ConfigLoader.report(error, command: "analyze", subject: { "--against \($0)" }, to: output)
                return ExitCode.usage
            }
            return compare(policy, other, output)
        }
        if let target { return query(policy, target, output) }
        return reachability(policy, output)
    }

    private func reachability(_ policy: CompiledPolicy, _ output: Output) -> Int32 {
        let (handlers, steps) = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        if format == .json {
            output.out(Self.withSteps(PolicyAnalysis.reachabilityObject(handlers), steps))
        } else {
            for handler in handlers {
                switch handler.reachable {
                case true?:
                    output.out("\(handler.name): reachable, e.g. \(Self.describe(handler.witness))")
                case false?:
                    output.out(
                        "\(handler.name): unreachable"
                            + (handler.shadowedBy.isEmpty
                                ? " (its match holds for no request)"
                                : ", shadowed by " + handler.shadowedBy.map { "\"\($0)\"" }.joined(separator: " + ")))
                case nil:
                    output.out("\(handler.name): unknown: \(handler.unknownReason ?? "")")
                }
            }
        }
        if handlers.contains(where: { $0.reachable == false }) { return ExitCode.failure }
        return handlers.contains(where: { $0.reachable == nil }) ? Self.unknownStatus : ExitCode.success
    }

    private func compare(_ policy: CompiledPolicy, _ other: CompiledPolicy, _ output: Output) -> Int32 {
        let result = PolicyAnalysis.equivalence(policy, other, comparingNames: comparesHandlers, limits: limits)
        if format == .json {
            output.out(Self.withSteps(PolicyAnalysis.equivalenceObject(result), result.steps))
        } else {
            switch result.equivalent {
            case true?: output.out("equivalent: every request is decided alike")
            case false?:
                output.out(
                    "not equivalent: \(result.differingRegions) region(s) differ; "
                        + "\(result.counterexamples.count) counterexample(s):")
                for example in result.counterexamples {
                    output.out("  \(Self.describe(example.request))")
                    output.out("    config:  \(Self.describe(example.first))")
                    output.out("    against: \(Self.describe(example.second))")
                }
            case nil: output.out("unknown")
            }
            for reason in result.unknownReasons { output.out("unknown: \(reason)") }
        }
        switch result.equivalent {
        case true?: return ExitCode.success
        case false?: return ExitCode.failure
        case nil: return Self.unknownStatus
        }
    }

    private func query(_ policy: CompiledPolicy, _ target: String, _ output: Output) -> Int32 {
        var matcher: RequestMatcher?
        if !scope.members.isEmpty {
            switch PolicyAnalysis.queryMatcher(scope, at: JSONPointer.root.appending("match")) {
            case .success(let built): matcher = built
            case .failure(let error):
                output.err("navpolicyd analyze: the query's scope is invalid:")
                for issue in error.issues { output.err("  \(issue)") }
                return ExitCode.usage
            }
        }
        let parsedTarget = PolicyAnalysis.target(target)
        if case .handler(let name) = parsedTarget, !policy.links.contains(where: { $0.name.hasSameUTF8(as: name) }) {
            output.err(
                "navpolicyd analyze: --can-reach: no handler is named \"\(EchoedText.bounded(name))\" (or use allow or cancel)")
            return ExitCode.usage
        }
        let answer = PolicyAnalysis.query(policy, reaching: parsedTarget, within: matcher, limits: limits)
        if format == .json {
            output.out(Self.withSteps(PolicyAnalysis.queryObject(answer), answer.steps))
        } else {
            switch answer.reachable {
            case true?:
                output.out("reachable: \(Self.describe(answer.witness))")
                if let decision = answer.decision { output.out("  decided: \(Self.describe(decision))") }
            case false?: output.out("unreachable: no request in the scope reaches \(target)")
            case nil: output.out("unknown: \(answer.unknownReason ?? "")")
            }
        }
        switch answer.reachable {
        case true?: return ExitCode.failure
        case false?: return ExitCode.success
        case nil: return Self.unknownStatus
        }
    }

    /// The JSON answer with `steps`, as `POST /v1/policy/analyze` gives it: the steps charged,
    /// more than `--max-steps` exactly when the bound stopped the run.
    private static func withSteps(_ object: JSONObject, _ steps: Int) -> String {
        var object = object
        object.append("steps", .number(Double(steps)))
        return object.serializedJSON
    }

    private static func describe(_ request: NavigationRequest?) -> String {
        guard let request else { return "-" }
        return "\(request.method) \(request.url) navigationType=\(request.navigationType.rawValue) "
            + "targetFrame=\(request.targetFrame.rawValue)"
    }

    private static func describe(_ decision: Decision) -> String {
        decision.verdict.rawValue + " by " + (decision.handler.map { "\"\($0)\"" } ?? "defaultDecision")
            + (decision.action.map { " action=\($0)" } ?? "") + (decision.location.map { " location=\($0)" } ?? "")
    }
}
