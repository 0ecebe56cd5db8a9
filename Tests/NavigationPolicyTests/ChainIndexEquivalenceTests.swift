import JSONSupport
import PolicyHarness
import Testing

@testable import NavigationPolicy

/// The index on a chain of 100,000 handlers. On random chains of every match form the index is
/// held to the linear scan by the differential harness (`PolicyHarnessTests`, its "indexed
/// chain" engine: the index on every chain, however short, and on every reading).
@Suite("Chain index equivalence")
struct ChainIndexEquivalenceTests {
    /// The tests' seeded generator (SplitMix64): the harness's, so one sequence per seed everywhere.
    typealias SeededGenerator = HarnessRandom

    @Test("a 100,000-handler chain decides like a scan")
    func largeChain() throws {
        var handlers: [JSONValue] = []
        for index in 0..<100_000 {
            let match: JSONObject =
                switch index % 5 {
                case 4: ["pathPatterns": .array([.string("/r\(index)/*")])]
                case 0: ["hosts": .array([.string("h\(index).example")])]
                case 1: ["hosts": .array([.string("*.w\(index).example")])]
                case 2: ["paths": .array([.string("/p\(index)")])]
                default: ["pathPrefixes": .array([.string("/q\(index)")])]
                }
            handlers.append(.object(["name": .string("h\(index)"), "type": .string("cancel"), "match": .object(match)]))
        }
        let policy = try PolicyCompiler().compile(.object(["handlers": .array(handlers)]))
        for url in [
            "https://h40.example/", "https://x.w99996.example/z", "https://a/p99997", "https://a/q99998/deeper",
            "https://a/P2", "https://a/r99999/x", "https://none.example/", "https://h5.example/p7",
        ] {
            let request = try CanonicalRequest(NavigationRequest(url: url))
            #expect(policy.decide(request) == policy.decideLinear(request), "\(url)")
        }
        #expect(try policy.decide(NavigationRequest(url: "https://h5.example/p7")).handler == "h5", "lowest position wins")
    }
}
