import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 32 with `match.urlPatterns` cut into regions: a pattern is a box over scheme, host
/// (the empty port included) and path in the plain reading, so it covers later handlers; the
/// engine's standard reading (``CanonicalRequest/standardURLReading``) is answered by spellings
/// decided by the engine, or stays unknown. Every exact answer here is checked against the engine.
@Suite("Policy analysis: urlPatterns as regions", .tags(.volume))
struct AnalysisURLPatternRegionsTests {
    static func policy(_ handlers: [String]) throws -> CompiledPolicy { try policy("allow", handlers) }

    static func policy(_ defaultDecision: String, _ handlers: [String]) throws -> CompiledPolicy {
        try compile(
            #"{"defaultDecision": "\#(defaultDecision)", "handlers": [\#(handlers.joined(separator: ","))]}"#)
    }

    static func expectWitness(_ policy: CompiledPolicy, _ handler: PolicyAnalysis.Reachability) throws {
        let witness = try #require(handler.witness, "\(handler)")
        #expect(try policy.decide(witness).handler == handler.name, "\(witness.url)")
    }

    @Test("a string pattern has the empty port: a later handler is reached with a port, re-checked")
    func portDodgesStringPattern() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin/*"]}}"#,
            #"{"name": "later", "type": "cancel", "action": "l", "match": {"schemes": ["https"], "hosts": ["*.example.com"], "pathPatterns": ["/admin/x*"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable == true, "\(report[1])")
        try Self.expectWitness(policy, report[1])
        #expect(report[1].witness?.url.contains(":1/") == true, "\(report[1].witness?.url ?? "")")
    }

    @Test("the issue's pair: the pattern leaves /admin itself (and http) to the later prefix handler")
    func issuePair() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin/*"]}}"#,
            #"{"name": "later", "type": "cancel", "action": "l", "match": {"hosts": ["*.example.com"], "pathPrefixes": ["/admin"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report.map(\.reachable) == [true, true], "\(report)")
        try Self.expectWitness(policy, report[0])
        try Self.expectWitness(policy, report[1])
    }

    @Test("a cancel pattern with any port covers a later cancel handler: unreachable, the standard reading changes nothing")
    func cancelCover() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "cancel", "match": {"urlPatterns": [{"protocol": "https", "hostname": "*.example.com", "pathname": "/admin/*"}]}}"#,
            #"{"name": "later", "type": "cancel", "action": "l", "match": {"schemes": ["https"], "hosts": ["*.example.com"], "pathPatterns": ["/admin/x*"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable == false, "\(report[1])")
        #expect(report[1].shadowedBy == ["pattern"])
        // Both cancel: wherever the standard reading lets a spelling past the pattern, the
        // plain reading already cancelled with it, and the plain one wins.
        for url in [
            "https://a.example.com./admin/x", "https://a.example.com/%61dmin/x", "https://a.example.com/admin;q/x",
            "https://a.example.com/admin/x;q",
        ] {
            #expect(try policy.decide(NavigationRequest(url: url)).handler == "pattern", "\(url)")
        }
    }

    @Test("an allow pattern covers a later allow handler: unreachable")
    func allowCover() throws {
        let policy = try Self.policy(
            "cancel",
            [
                #"{"name": "pattern", "type": "allow", "match": {"urlPatterns": [{"hostname": "a.example", "pathname": "/x/*"}]}}"#,
                #"{"name": "later", "type": "allow", "match": {"hosts": ["a.example"], "pathPatterns": ["/x/y*"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[0].reachable == true)
        #expect(report[1].reachable == false, "\(report[1])")
        #expect(report[1].shadowedBy == ["pattern"])
    }

    @Test("an allow pattern before a cancel handler: reached only through the standard reading, witness re-checked")
    func cancelReachedThroughStandardReading() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "allow", "match": {"urlPatterns": [{"hostname": "a.example", "pathname": "/x/*"}]}}"#,
            #"{"name": "later", "type": "cancel", "action": "l", "match": {"hosts": ["a.example"], "pathPatterns": ["/x/y*"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable == true, "\(report[1])")
        try Self.expectWitness(policy, report[1])
        // The plain reading of the witness is allowed by the pattern: only the standard one reaches `later`.
        let witness = try #require(report[1].witness)
        let canonical = try CanonicalRequest(witness)
        #expect(policy.decideLinear(canonical).handler == "pattern", "\(witness.url)")
    }

    @Test("a pattern whose host, path and search are * reads alike in both readings: its cover is exact")
    func alikePatternCover() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "allow", "match": {"urlPatterns": [{"protocol": "http{s}?"}]}}"#,
            #"{"name": "later", "type": "cancel", "match": {"schemes": ["https"], "hosts": ["a.example"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable == false, "\(report[1])")
        #expect(report[1].shadowedBy == ["pattern"])
    }

    @Test("what is not cut into regions stays unknown, with the reason")
    func unmodelledStaysUnknown() throws {
        let policy = try Self.policy([
            #"{"name": "search", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/a/*", "search": "t=*"}]}}"#,
            #"{"name": "groups", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/u/(\\d+)"}]}}"#,
            #"{"name": "later", "type": "cancel", "match": {"pathPatterns": ["/a/b*"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[2].reachable == true, "\(report[2])")
        try Self.expectWitness(policy, report[2])
        let equivalence = PolicyAnalysis.equivalence(policy, policy)
        #expect(equivalence.equivalent == nil)
        #expect(equivalence.unknownReasons.contains { $0.contains("search") && $0.contains("regexp groups") })
    }

    @Test(
        "equivalence with the standard reading: a hosts+paths rewrite of a pattern is told apart, the counterexample re-checked",
        arguments: [
            // Cancel rules, default allow: `/x/..;/` is in the pattern for the standard reading only, and a cancel there wins.
            ("allow", "cancel", #"{"protocol": "https", "hostname": "a.example", "pathname": "/x/*"}"#),
            // Allow rules, default cancel: `a.example.` dodges the pattern in the standard reading, and the default cancels.
            ("cancel", "allow", #"{"protocol": "https", "hostname": "a.example", "pathname": "/x/*"}"#),
            // A string pattern: its empty port already differs in the plain reading.
            ("allow", "cancel", #""https://a.example/x/*""#),
        ])
    func rewriteIsNotEquivalent(_ defaultDecision: String, _ type: String, _ pattern: String) throws {
        let first = try Self.policy(
            defaultDecision, [#"{"name": "p", "type": "\#(type)", "match": {"urlPatterns": [\#(pattern)]}}"#])
        let second = try Self.policy(
            defaultDecision,
            [
                #"{"name": "p", "type": "\#(type)", "match": {"schemes": ["https"], "hosts": ["a.example"], "pathPatterns": ["/x/", "/x/?*"]}}"#
            ])
        let result = PolicyAnalysis.equivalence(first, second)
        #expect(result.equivalent == false, "\(result.unknownReasons)")
        let example = try #require(result.counterexamples.first)
        let one = try first.decide(example.request)
        let other = try second.decide(example.request)
        #expect(!PolicyAnalysis.sameOutcome(one, other, comparingNames: false), "\(example.request.url)")
    }

    @Test("equivalence: patterns that read alike in both readings are compared exactly")
    func alikeEquivalence() throws {
        let first = try Self.policy([
            #"{"name": "p", "type": "cancel", "match": {"urlPatterns": [{"protocol": "http{s}?"}], "methods": ["POST"]}}"#
        ])
        let second = try Self.policy([
            #"{"name": "p", "type": "cancel", "match": {"schemes": ["http", "https"], "methods": ["POST"]}}"#
        ])
        #expect(PolicyAnalysis.equivalence(first, second).equivalent == true)
        let widened = try Self.policy([#"{"name": "p", "type": "cancel", "match": {"methods": ["POST"]}}"#])
        let differs = PolicyAnalysis.equivalence(first, widened)
        #expect(differs.equivalent == false)
        let example = try #require(differs.counterexamples.first)
        #expect(try first.decide(example.request).verdict != widened.decide(example.request).verdict)
    }

    @Test("a query scoped by a urlPattern: a witness in the scope, or none proven on the scope without its patterns")
    func scopedQueries() throws {
        let policy = try Self.policy([
            #"{"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}}"#,
            #"{"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}}"#,
        ])
        let scope = try compile(
            #"{"handlers": [{"name": "scope", "type": "cancel", "match": {"urlPatterns": ["https://pay.example.com/*"]}}]}"#
        ).links[0].matcher
        let none = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: scope)
        #expect(none.reachable == false, "\(none.unknownReason ?? "")")
        let some = PolicyAnalysis.query(policy, reaching: .verdict(.cancel), within: scope)
        #expect(some.reachable == true, "\(some.unknownReason ?? "")")
        let witness = try #require(some.witness)
        #expect(try policy.decide(witness).handler == "pay")
        #expect(try scope.holdsOnSomeReading(CanonicalRequest(witness)))
    }
}
