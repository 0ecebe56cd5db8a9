public import JSONSupport
public import NavigationPolicy

/// Runs generated policies and requests on every engine and holds each to the reference (the
/// first engine: ``HarnessEngine/linearScan``).
public enum DifferentialHarness {
    /// The engines of the core, reference first. The client's adapter is in `PolicyHarnessClient`
    /// (it needs Foundation, which the core's tests do without).
    public static let coreEngines: [HarnessEngine] = [
        .linearScan, .indexedChain, .patternAutomaton, .explained, .jsonTables, .compiledImage,
    ]

    /// A request as a failure names it: enough to reproduce it by hand.
    public static func describe(_ request: NavigationRequest) -> String {
        "\(request.url) \(request.method) \(request.navigationType.rawValue) \(request.targetFrame.rawValue)"
            + (request.urlWithoutClientPort.map { " (client port; without: \($0))" } ?? "")
    }

    /// The policy of `seed` in `shape`, its requests, decided by every engine of `engines`; the
    /// analysis claims too when `claims` is given.
    public static func run(
        seed: UInt64, shape: PolicyShape, engines: [HarnessEngine], claims: AnalysisClaims.Options?,
        figures: inout HarnessFigures
    ) {
        var random = HarnessRandom(state: seed)
        let json = PolicyGenerator.policy(shape: shape, &random)
        run(
            json, label: "seed \(seed) (\(shape))", requests: shape.requests, engines: engines, claims: claims,
            random: &random, figures: &figures)
    }

    /// `json` (a generated policy, or one of ``HarnessCorpus``) and `requests` requests aimed at it,
    /// decided by every engine of `engines`; the analysis claims too when `claims` is given.
    public static func run(
        _ json: JSONObject, label: String, requests count: Int, engines: [HarnessEngine],
        claims: AnalysisClaims.Options?, random: inout HarnessRandom, figures: inout HarnessFigures
    ) {
        let policy: PolicyCase
        do {
            policy = try PolicyCase(json)
        } catch {
            figures.record("\(label): the generated policy does not compile: \(error)")
            return
        }
        let requests = RequestGenerator(policy: json).requests(count, &random)
        let reference = compare(policy, requests, engines: engines, label: label, figures: &figures)
        if let claims {
            AnalysisClaims.check(
                policy, requests: requests, decisions: reference, options: claims, label: label, random: &random,
                figures: &figures)
        }
    }

    /// Decides `requests` on every engine; returns the reference's decisions.
    @discardableResult
    public static func compare(
        _ policy: PolicyCase, _ requests: [NavigationRequest], engines: [HarnessEngine], label: String,
        figures: inout HarnessFigures
    ) -> [Decision?] {
        figures.policies += 1
        figures.requests += requests.count
        figures.engines = max(figures.engines, engines.count)
        var built: [(name: String, decide: HarnessEngine.Decide)] = []
        for engine in engines {
            do {
                built.append((engine.name, try engine.build(policy)))
            } catch {
                figures.record("\(label): \(engine.name) did not build the policy: \(error)")
            }
        }
        guard let reference = built.first else { return [] }
        let decisions = requests.map(reference.decide)
        for (request, expected) in zip(requests, decisions) {
            let wanted = expected.map(DecisionOutcome.init)
            for engine in built.dropFirst() {
                figures.decisionsCompared += 1
                let got = engine.decide(request).map(DecisionOutcome.init)
                guard got != wanted else { continue }
                figures.record(
                    "\(label): \(engine.name) decides \(describe(request)) as \(got?.description ?? "refused"), "
                        + "the linear scan as \(wanted?.description ?? "refused")\n  policy: "
                        + JSONValue.object(policy.json).serialized)
            }
        }
        return decisions
    }
}
