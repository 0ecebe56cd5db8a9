import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Outside attack 14, R5: the regions of one handler's long `urlPatterns` list cost seconds
/// that the run's steps did not show (10.02 M steps for 2,000 entries, 10.07 M for 8,000, while
/// the run took 0.89 and 5.9 s): the up-front charge left `urlPatterns` out, and the candidate
/// paths' terms were computed uncharged. Asserted on steps, never on time.
@Suite("Policy analysis: urlPatterns charged to the run")
struct AnalysisURLPatternChargeTests {
    /// One handler whose `urlPatterns` pathnames all share their leading text, so each candidate
    /// path is checked against every one of them.
    static func policy(_ count: Int) throws -> CompiledPolicy {
        let patterns = (0..<count).map { #""https://a.example/ab\#($0)x/*""# }.joined(separator: ",")
        return try compile(#"{"handlers": [{"name": "h", "type": "cancel", "match": {"urlPatterns": [\#(patterns)]}}]}"#)
    }

    /// What the up-front charge of `policy`'s regions is.
    static func upFrontCharge(_ policy: CompiledPolicy) -> Int {
        let budget = AnalysisBudget(steps: Int.max / 4)
        #expect(budget.chargeDomain(policy.links.map(\.matcher)))
        return budget.spent
    }

    @Test("the up-front charge counts urlPatterns entries, growing with the square of their number")
    func upFrontChargeCountsURLPatterns() throws {
        let small = Self.upFrontCharge(try Self.policy(100))
        let large = Self.upFrontCharge(try Self.policy(200))
        // 3 candidates an entry, each checked against every entry: (3 × 200 + 4) × (64 + 200).
        #expect(large >= 150_000, "\(large)")
        #expect(large >= 3 * small, "\(small) then \(large)")
    }

    @Test("a bound the regions run out of leaves every answer unknown, never one from half the regions")
    func regionsStoppedByTheBoundAnswerNothing() throws {
        let policy = try Self.policy(120)
        // Enough for the up-front charge, not for the path automaton and the candidates' checks.
        let limits = PolicyAnalysis.Limits(steps: Self.upFrontCharge(policy) + 2_000)
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        #expect(report.handlers.allSatisfy { $0.reachable == nil }, "\(report.handlers.map(\.reachable))")
        #expect(report.steps > limits.steps, "\(report.steps)")
        let compared = PolicyAnalysis.equivalence(policy, policy, limits: limits)
        #expect(compared.equivalent == nil && !compared.unknownReasons.isEmpty)
        let query = PolicyAnalysis.query(policy, reaching: .verdict(.cancel), within: nil, limits: limits)
        #expect(query.reachable == nil && query.unknownReason != nil)
    }
}
