import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 32 with `match.urlPatterns` (issue 31): a handler filed under patterns is reached by
/// a URL built from its own pattern and confirmed by the engine, so "reachable" is exact for
/// patterns without regexp groups; covers by patterns are exact too (see
/// `AnalysisURLPatternRegionsTests`), the engine's second, standard reading of the URL
/// (odd spellings such as `example.com.` or `/%61dmin`) answered by spellings it decides.
@Suite("Policy analysis: urlPatterns", .tags(.volume))
struct PolicyAnalysisURLPatternTests {
    static func policy(_ handlers: [String]) throws -> CompiledPolicy {
        try compile(#"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ","))]}"#)
    }

    @Test(
        "patterns without regexp groups: each handler reached by a witness from its pattern",
        arguments: [
            #""https://*.example.com/admin/*""#,
            #""https://shop.test/cart{/}?""#,
            #"{"pathname": "/books/:id"}"#,
            #"{"hostname": "api.test", "pathname": "/v:version/*", "search": "token=*"}"#,
            #""http{s}?://partner.test/:lang/docs/*""#,
            #"{"protocol": "myapp", "pathname": "open/*"}"#,
        ])
    func reachedFromPattern(_ pattern: String) throws {
        let policy = try Self.policy([
            #"{"name": "hosts", "type": "allow", "match": {"hosts": ["*.example.com", "api.test"]}, "mode": "shadow"}"#,
            #"{"name": "routes", "type": "cancel", "match": {"pathPrefixes": ["/"], "methods": ["POST"]}}"#,
            #"{"name": "pattern", "type": "cancel", "action": "p", "match": {"urlPatterns": [\#(pattern)]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        let handler = try #require(report.last)
        #expect(handler.reachable == true, "\(pattern): \(handler.unknownReason ?? "")")
        let witness = try #require(handler.witness)
        #expect(try policy.decide(witness).handler == "pattern", "\(witness.url)")
    }

    @Test("a pattern behind a broader handler is not reached; with regexp groups the reason names them")
    func notReachedStaysHonest() throws {
        let policy = try Self.policy([
            #"{"name": "all", "type": "cancel", "match": {"schemes": ["https"]}}"#,
            #"{"name": "behind", "type": "cancel", "match": {"urlPatterns": ["https://a.test/*"]}}"#,
            #"{"name": "groups", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/u/(\\d+)"}]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        // `behind` matches only https URLs, which `all` takes: proven without reading the pattern.
        #expect(report[1].reachable == false || report[1].reachable == nil)
        #expect(report[1].reachable != true)
        #expect(report[2].reachable == nil, "\(report[2])")
        #expect(report[2].unknownReason?.contains("regexp groups") == true, "\(report[2].unknownReason ?? "")")
    }

    @Test("a pattern's cover is exact: the later handler is reached where the pattern is dodged, witness re-checked")
    func coverByPatternIsExact() throws {
        let policy = try Self.policy([
            #"{"name": "pattern", "type": "allow", "match": {"urlPatterns": ["https://example.com/*"]}}"#,
            #"{"name": "hosts", "type": "cancel", "match": {"hosts": ["example.com"], "schemes": ["https"]}}"#,
        ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[0].reachable == true)
        // The string pattern has the empty port (`https://example.com:1/` is not in it), and
        // https://example.com./ is example.com for `hosts`, not for the pattern's standard
        // reading, where `hosts` cancels: the engine lets the cancel win. Either is a witness.
        let dodged = try policy.decide(NavigationRequest(url: "https://example.com./x"))
        #expect(dodged.handler == "hosts", "\(dodged)")
        #expect(report[1].reachable == true, "\(report[1])")
        let witness = try #require(report[1].witness)
        #expect(try policy.decide(witness).handler == "hosts", "\(witness.url)")
    }
}
