import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The path automaton re-checks each of its witnesses against the terms that can match it. For
/// URLPattern pathnames that used to mean every automaton on every witness: a 2,000-handler chain
/// of `urlPatterns` spent 40 M steps (over the endpoint's 30 M bound, so every handler answered
/// unknown) where 6 M do. Pathnames are now filed by their leading text like general
/// `pathPatterns`. Asserted on steps, never on time.
@Suite("Analysis: URLPattern pathnames filed by leading text", .tags(.volume))
struct AnalysisURLPatternLeadIndexTests {
    /// Handlers whose pathnames have a segment wildcard inside, so the automaton runs.
    static func chain(_ count: Int) -> String {
        let handlers = (0..<count).map { index in
            let pattern = "https://h\(index).example.com/p\(index)/:id/e\(index % 13)*"
            return #"{"name": "h\#(index)", "type": "\#(index % 3 == 0 ? "cancel" : "allow")", "#
                + #""match": {"urlPatterns": ["\#(pattern)"]}}"#
        }
        return #"{"handlers": [\#(handlers.joined(separator: ","))]}"#
    }

    @Test("400 urlPatterns handlers: every one reachable within 2.5 M steps (4.5 M when every automaton ran on every witness)")
    func leadIndexBoundsTheReCheck() throws {
        let policy = try compile(Self.chain(400))
        let (report, steps) = PolicyAnalysis.reachabilityReport(policy)
        #expect(report.allSatisfy { $0.reachable == true }, "\(report.compactMap(\.unknownReason).prefix(3))")
        #expect(steps < 2_500_000, "\(steps) steps")
    }

    @Test("case-insensitive and case-sensitive pathnames are found under their folded and exact leads")
    func leadsFollowCase() throws {
        let policy = try compile(
            #"""
            {"handlers": [
              {"name": "folded", "type": "cancel", "match": {"urlPatterns": ["https://a.example/Admin/:id/x*"]}},
              {"name": "exact", "type": "cancel", "match": {"caseSensitive": true, "urlPatterns": ["https://a.example/Admin/:id/y*"]}},
              {"name": "later", "type": "cancel", "match": {"hosts": ["a.example"], "pathPrefixes": ["/admin"]}}
            ]}
            """#)
        let report = PolicyAnalysis.reachability(policy)
        #expect(report.map(\.reachable) == [true, true, true], "\(report.compactMap(\.unknownReason))")
        for answer in report {
            let witness = try #require(answer.witness)
            #expect(policy.decide(try CanonicalRequest(witness)).handler == answer.name)
        }
    }
}
