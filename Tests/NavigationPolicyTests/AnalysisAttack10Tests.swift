import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Outside attack 10 on the analysis found no wrong answer; these pin its two low findings.
@Suite("Analysis after attack 10", .tags(.volume))
struct AnalysisAttack10Tests {
    /// L1: one `pathPatterns` entry of 2,000 `*a` made the path automaton spend the endpoint's
    /// whole 30 M steps, so a handler its plainest request reaches came back unknown. The
    /// automaton now runs on a share of the budget (at most 10 M steps, half of those left) and
    /// falls back to candidate witnesses when it gives up.
    @Test("a handler one huge general pattern matches is reached within the endpoint's bound")
    func hugePatternStillReached() throws {
        let pattern = "/" + String(repeating: "*a", count: 2_000)
        let policy = try compile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"pathPatterns": ["\#(pattern)"]}}]}"#)
        let (report, steps) = PolicyAnalysis.reachabilityReport(policy, limits: .init(steps: 30_000_000))
        let answer = try #require(report.first)
        #expect(answer.reachable == true, "\(answer.unknownReason ?? "")")
        #expect(steps <= 30_000_000, "\(steps) steps")
        let witness = try #require(answer.witness)
        #expect(try policy.decide(CanonicalRequest(witness)).handler == "a")
    }

    @Test("a budget phase stops at its share and charges what it spent to the run")
    func phaseCharges() {
        let run = AnalysisBudget(steps: 1_000)
        run.spend(100)
        let phase = run.phase(10_000)
        #expect(phase.remaining == 450, "half of the 900 left")
        phase.spend(500)
        #expect(phase.isExhausted)
        run.absorb(phase)
        #expect(run.spent == 600 && !run.isExhausted)
    }

    /// L2: a `--url-pattern` scope with a regexp group answered "an analysis error"; it is an
    /// unmodelled pattern and says so.
    @Test("a scope with a regexp group is unknown for that reason, not as an analysis error")
    func regexpScopeSaysWhy() throws {
        let policy = try compile(#"{"handlers": [{"name": "x", "type": "cancel", "match": {"hosts": ["b.example"]}}]}"#)
        let scope: JSONObject = ["urlPatterns": .array([.string("https://a.example/(a?){5000}b")])]
        let matcher = try PolicyAnalysis.queryMatcher(scope, at: .root).get()
        let answer = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: matcher)
        #expect(answer.reachable == nil)
        #expect(answer.unknownReason?.contains("regexp groups") == true, "\(answer.unknownReason ?? "")")
    }
}
