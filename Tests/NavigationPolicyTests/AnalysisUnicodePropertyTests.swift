import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 40: a `urlPatterns` regexp group with a property escape is not a language the analysis
/// models, so claims resting on it stay unknown, with the reason; never a false proof. Every
/// exact answer is re-decided by the engine.
struct AnalysisUnicodePropertyTests {
    private static func policy(_ handlers: [String]) throws -> CompiledPolicy {
        try AnalysisURLPatternRegionsTests.policy("cancel", handlers)
    }

    @Test("a handler after a \\p{L} pattern is not claimed unreachable; a witness reaches it")
    func reachability() throws {
        let policy = try Self.policy([
            #"{"name": "letters", "type": "allow", "match": {"urlPatterns": [{"pathname": "/u/(\\p{L}+)"}]}}"#,
            #"{"name": "later", "type": "allow", "match": {"pathPatterns": ["/u/*"]}}"#,
        ])
        #expect(try policy.decide(NavigationRequest(url: "https://a.example/u/abc")).handler == "letters")
        #expect(try policy.decide(NavigationRequest(url: "https://a.example/u/123")).handler == "later")
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable != false, "a false proof: \(report[1])")
        if report[1].reachable == true { try AnalysisURLPatternRegionsTests.expectWitness(policy, report[1]) }
        if report[1].reachable == nil { #expect(report[1].unknownReason != nil) }
    }

    @Test("\\p{L} and \\p{Nd} are never proved equivalent; the reason or a re-decided counterexample says why")
    func equivalence() throws {
        let letters = try Self.policy([
            #"{"name": "p", "type": "allow", "match": {"urlPatterns": [{"pathname": "/u/(\\p{L}+)"}]}}"#
        ])
        let digits = try Self.policy([
            #"{"name": "p", "type": "allow", "match": {"urlPatterns": [{"pathname": "/u/(\\p{Nd}+)"}]}}"#
        ])
        let request = NavigationRequest(url: "https://a.example/u/abc")
        #expect(try letters.decide(request).verdict != digits.decide(request).verdict)
        let report = PolicyAnalysis.equivalence(letters, digits)
        #expect(report.equivalent != true, "a false proof of equivalence")
        if report.equivalent == nil {
            #expect(report.unknownReasons.contains { $0.contains("regexp groups") }, "\(report.unknownReasons)")
        }
        for counterexample in report.counterexamples {
            #expect(try letters.decide(counterexample.request) != digits.decide(counterexample.request))
        }
    }
}
