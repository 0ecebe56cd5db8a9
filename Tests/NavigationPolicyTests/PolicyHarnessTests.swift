import NavigationPolicy
import PolicyHarness
import TestSelection
import Testing

/// The differential harness (Tests/Support/PolicyHarness, issue 40): seeded random policies
/// over every match form, decided by every engine of the core and held to the linear scan,
/// and every kind of claim the analysis makes held to the engine. The client's engine joins in
/// NavigationPolicyClientTests (`ClientHarnessTests`), the fuzz step in `FuzzPolicyHarness`.
/// `scripts/mutate-engines.sh` breaks one match form in one engine at a time and expects this
/// suite to fail.
@Suite("Differential harness: every engine and the analysis's claims", .tags(.volume))
struct PolicyHarnessTests {
    /// Seeds of chains long enough for the index, with lists that become tables.
    static let indexedSeeds = TestVolume.seeds(UInt64(0)..<400, sample: 40)
    /// Seeds of small overlapping chains (the engines, then the analysis's claims on them).
    static let smallSeeds = TestVolume.seeds(UInt64(10_000)..<10_200, sample: 30)
    static let analysisSeeds = TestVolume.seeds(UInt64(20_000)..<20_120, sample: 12)
    /// Mutations per policy in the sample; every one in the full run.
    static let mutations: Int? = TestVolume.isFull ? nil : 10

    static func report(_ figures: HarnessFigures) {
        print(figures.summary)
        for disagreement in figures.disagreements { Issue.record(Comment(rawValue: disagreement)) }
    }

    @Test("every engine decides every generated request as the linear scan does")
    func engines() {
        var figures = HarnessFigures()
        for seed in Self.indexedSeeds {
            DifferentialHarness.run(
                seed: seed, shape: .indexed, engines: DifferentialHarness.coreEngines, claims: nil, figures: &figures)
        }
        for seed in Self.smallSeeds {
            DifferentialHarness.run(
                seed: seed, shape: .small, engines: DifferentialHarness.coreEngines, claims: nil, figures: &figures)
        }
        Self.report(figures)
        #expect(figures.policies == Self.indexedSeeds.count + Self.smallSeeds.count)
    }

    @Test("no claim of the analysis is refuted: reachability, none-can-reach, equivalence on one-field mutations")
    func analysisClaims() {
        var figures = HarnessFigures()
        for seed in Self.analysisSeeds {
            DifferentialHarness.run(
                seed: seed, shape: .small, engines: [.linearScan],
                claims: AnalysisClaims.Options(mutations: Self.mutations), figures: &figures)
        }
        for (number, corpus) in HarnessCorpus.policies.enumerated() {
            var random = HarnessRandom(state: UInt64(number))
            DifferentialHarness.run(
                corpus.policy, label: corpus.name, requests: 300, engines: DifferentialHarness.coreEngines,
                claims: AnalysisClaims.Options(), random: &random, figures: &figures)
        }
        Self.report(figures)
        // Each kind of claim is made, so each is checked (an analysis that answered "unknown"
        // to everything would pass the checks above and fail here).
        for kind in ["unreachable", "reachable (witness re-decided)", "none can reach", "equivalent", "not equivalent"] {
            #expect((figures.claims[kind] ?? 0) > 0, "no \"\(kind)\" claim was checked: \(figures.summary)")
        }
    }

    @Test("every field the config decoder reads has a one-field mutation")
    func everyFieldIsMutated() {
        var random = HarnessRandom(state: 1)
        #expect(PolicyMutations.missingMutations(PolicyGenerator.policy(shape: .small, &random)) == [])
    }

    /// The harness itself fails when an engine is wrong: an engine that loses one field of
    /// its decisions, or one request's decision, is reported.
    @Test("a broken engine is caught")
    func brokenEngineIsCaught() {
        let losesActions = HarnessEngine(name: "loses actions") { policy in
            let chain = policy.compiled
            return { request in
                var decision = try? chain.decide(request)
                decision?.action = nil
                return decision
            }
        }
        var figures = HarnessFigures()
        for seed in Self.smallSeeds.prefix(4) {
            DifferentialHarness.run(
                seed: seed, shape: .small, engines: [.linearScan, losesActions], claims: nil, figures: &figures)
        }
        #expect(!figures.disagreements.isEmpty)
    }
}
