import JSONSupport
import NavigationPolicy
import PolicyAuthoring

/// Every kind of claim the analysis (``PolicyAnalysis``) makes, held to the engine on the
/// generated requests. "Unknown" is always allowed and counted; a claim a request refutes, and
/// a witness or counterexample that does not decide as claimed, is a disagreement.
///
/// - reachability: a handler "unreachable" decides no generated request (a shadow one is in no
///   decision's shadow list); a "reachable" one is reached by its witness;
/// - queries: "none can reach" a verdict or handler within a scope: no generated request in the
///   scope (its match holding on some reading) reaches it; a witness does, in the scope;
/// - equivalence, on every one-field mutation (``PolicyMutations``), with and without comparing
///   handlers: "equivalent" is refuted by no generated request (from both policies), and every
///   counterexample decides differently when decided again.
public enum AnalysisClaims {
    public struct Options: Sendable {
        /// The analysis's step bound per question.
        public var steps: Int
        /// Mutations checked per policy, chosen at random; nil: every one.
        public var mutations: Int?
        /// Requests generated from each mutated policy, on top of the original's.
        public var extraRequests: Int

        public init(steps: Int = 1_000_000, mutations: Int? = nil, extraRequests: Int = 60) {
            self.steps = steps
            self.mutations = mutations
            self.extraRequests = extraRequests
        }
    }

    static func check(
        _ policy: PolicyCase, requests: [NavigationRequest], decisions: [Decision?], options: Options, label: String,
        random: inout HarnessRandom, figures: inout HarnessFigures
    ) {
        let limits = PolicyAnalysis.Limits(steps: options.steps)
        reachability(policy, requests, decisions, limits: limits, label: label, figures: &figures)
        queries(policy, requests, decisions, limits: limits, label: label, random: &random, figures: &figures)
        var mutations = PolicyMutations.all(policy.json, &random)
        if let count = options.mutations {
            // The chain's order and what a handler builds first (a sample of 10 of ~50 mutations
            // left them out often enough to miss an analysis that ignored a location), then at random.
            var chosen = mutations.filter { Self.firstMutated.contains(where: $0.field.hasSuffix) }
            mutations.removeAll { Self.firstMutated.contains(where: $0.field.hasSuffix) }
            while chosen.count < count, !mutations.isEmpty { chosen.append(mutations.remove(at: random.below(mutations.count))) }
            mutations = chosen
        }
        for (field, mutated) in mutations {
            guard let other = try? PolicyCase(mutated) else { continue }
            let extra = RequestGenerator(policy: mutated).requests(options.extraRequests, &random)
            equivalence(
                policy, other, requests: requests + extra, limits: limits, label: "\(label) mutation \(field)",
                figures: &figures)
        }
    }

    /// Fields whose mutations a sample always checks.
    static let firstMutated = ["/handlers", "/location", "/urlPatterns"]

    /// Whether `decision` is `name`'s: it decided, or (a shadow handler) would have.
    static func reached(_ decision: Decision, _ name: String, isShadow: Bool) -> Bool {
        isShadow ? decision.shadow?.contains { $0.handler == name } ?? false : decision.handler == name
    }

    static func reachability(
        _ policy: PolicyCase, _ requests: [NavigationRequest], _ decisions: [Decision?], limits: PolicyAnalysis.Limits,
        label: String, figures: inout HarnessFigures
    ) {
        for answer in PolicyAnalysis.reachability(policy.compiled, limits: limits) {
            switch answer.reachable {
            case false?:
                figures.count(claim: "unreachable")
                for (request, decision) in zip(requests, decisions) {
                    guard let decision, reached(decision, answer.name, isShadow: answer.isShadow) else { continue }
                    figures.record(
                        "\(label): the analysis says \"\(answer.name)\" is unreachable, yet it decides "
                            + DifferentialHarness.describe(request))
                    break
                }
            case true?:
                figures.count(claim: "reachable (witness re-decided)")
                let decision = answer.witness.flatMap { try? policy.compiled.decide($0) }
                if decision.map({ reached($0, answer.name, isShadow: answer.isShadow) }) != true {
                    figures.record(
                        "\(label): the witness for \"\(answer.name)\" does not reach it: "
                            + (answer.witness.map(DifferentialHarness.describe) ?? "none given"))
                }
            case nil:
                figures.unknownClaims += 1
            }
        }
    }

    /// The scope of a query as the analysis takes it, and a chain that cancels exactly the
    /// requests in it (its match holding on some reading: the readings list the engine decides).
    static func scope(_ match: JSONObject) -> (matcher: RequestMatcher, chain: CompiledPolicy)? {
        let document: JSONObject = [
            "defaultDecision": .string("allow"),
            "handlers": .array([.object(["name": .string("scope"), "type": .string("cancel"), "match": .object(match)])]),
        ]
        guard let chain = try? PolicyCompiler().compile(.object(document)), let link = chain.links.first else { return nil }
        return (link.matcher, chain)
    }

    static func queries(
        _ policy: PolicyCase, _ requests: [NavigationRequest], _ decisions: [Decision?], limits: PolicyAnalysis.Limits,
        label: String, random: inout HarnessRandom, figures: inout HarnessFigures
    ) {
        let links = policy.compiled.links
        var targets: [PolicyAnalysis.Target] = [.verdict(.cancel), .verdict(.allow)]
        if !links.isEmpty { targets.append(.handler(random.pick(links).name)) }
        for target in targets {
            let scoped = random.chance(50) ? scope(PolicyGenerator.match(shape: .small, &random)) : nil
            let answer = PolicyAnalysis.query(policy.compiled, reaching: target, within: scoped?.matcher, limits: limits)
            func inScope(_ request: NavigationRequest) -> Bool {
                guard let scoped else { return true }
                return (try? scoped.chain.decide(request))?.handler == "scope"
            }
            func reaches(_ decision: Decision) -> Bool {
                switch target {
                case .verdict(let verdict): decision.verdict == verdict
                case .handler(let name):
                    reached(decision, name, isShadow: links.first { $0.name == name }?.isShadow ?? false)
                }
            }
            let asked = "\(target) within \(scoped == nil ? "every request" : "a scope")"
            switch answer.reachable {
            case false?:
                figures.count(claim: "none can reach")
                for (request, decision) in zip(requests, decisions) {
                    guard let decision, reaches(decision), inScope(request) else { continue }
                    figures.record(
                        "\(label): the analysis says no request reaches \(asked), yet \(DifferentialHarness.describe(request)) does"
                    )
                    break
                }
            case true?:
                figures.count(claim: "query witness re-decided")
                guard let witness = answer.witness, let decision = try? policy.compiled.decide(witness), reaches(decision),
                    inScope(witness)
                else {
                    figures.record(
                        "\(label): the witness for \(asked) does not reach it in the scope: "
                            + (answer.witness.map(DifferentialHarness.describe) ?? "none given"))
                    continue
                }
            case nil:
                figures.unknownClaims += 1
            }
        }
    }

    /// Whether two decisions agree on what equivalence compares.
    static func alike(_ first: Decision?, _ second: Decision?, comparingNames: Bool) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return first.verdict == second.verdict && first.action == second.action && first.location == second.location
            && first.url == second.url && first.response == second.response
            && (!comparingNames || first.handler == second.handler)
    }

    static func equivalence(
        _ first: PolicyCase, _ second: PolicyCase, requests: [NavigationRequest], limits: PolicyAnalysis.Limits,
        label: String, figures: inout HarnessFigures
    ) {
        for comparingNames in [false, true] {
            let result = PolicyAnalysis.equivalence(
                first.compiled, second.compiled, comparingNames: comparingNames, limits: limits)
            let name = label + (comparingNames ? " (--compare handler)" : "")
            switch result.equivalent {
            case true?:
                figures.count(claim: "equivalent")
                for request in requests {
                    let one = try? first.compiled.decide(request)
                    let other = try? second.compiled.decide(request)
                    guard !alike(one, other, comparingNames: comparingNames) else { continue }
                    figures.record(
                        "\(name): the analysis says \"equivalent\", yet \(DifferentialHarness.describe(request)) decides "
                            + "\(one.map { DecisionOutcome($0).description } ?? "refused") and "
                            + "\(other.map { DecisionOutcome($0).description } ?? "refused")\n  first: "
                            + JSONValue.object(first.json).serialized + "\n  second: " + JSONValue.object(second.json).serialized)
                    break
                }
            case false?:
                figures.count(claim: "not equivalent")
                for example in result.counterexamples {
                    figures.count(claim: "counterexample re-decided")
                    let one = try? first.compiled.decide(example.request)
                    let other = try? second.compiled.decide(example.request)
                    if one == nil || alike(one, other, comparingNames: comparingNames) {
                        figures.record(
                            "\(name): the counterexample \(DifferentialHarness.describe(example.request)) decides alike")
                    }
                }
            case nil:
                figures.unknownClaims += 1
            }
        }
    }
}
