import PolicyHarness
import PolicyHarnessClient
import TestSelection
import Testing

/// The differential harness with the app's client among the engines: each generated policy as a
/// signed compiled bundle, verified and decided through ``NavigationPolicyClient``, alike with the
/// linear scan and every other engine on every generated request.
@Suite("Differential harness: the client's signed compiled bundle", .tags(.volume))
struct ClientHarnessTests {
    static let seeds = TestVolume.seeds(UInt64(30_000)..<30_200, sample: 16)

    @Test("a signed compiled bundle decides every generated request as every engine of the core")
    func clientAgrees() {
        var figures = HarnessFigures()
        let engines = DifferentialHarness.coreEngines + [.clientBundle]
        for (number, seed) in Self.seeds.enumerated() {
            DifferentialHarness.run(
                seed: seed, shape: number % 2 == 0 ? .indexed : .small, engines: engines, claims: nil, figures: &figures)
        }
        print(figures.summary)
        for disagreement in figures.disagreements { Issue.record(Comment(rawValue: disagreement)) }
        #expect(figures.engines == engines.count && figures.policies == Self.seeds.count)
    }
}
