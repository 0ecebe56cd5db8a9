import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The steps a run reports (outside attack 9, F7): a run its bound stopped reported 0 when the
/// bound refused the regions up front, which read as a run with nothing to do.
@Suite("Policy analysis: steps reported past the bound", .tags(.volume))
struct AnalysisBudgetStepsTests {
    static func policy() throws -> CompiledPolicy {
        try compile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"hosts": ["a.example"], "pathPrefixes": ["/x"]}},"#
                + #"{"name": "b", "type": "allow", "match": {"hosts": ["*.example"]}}]}"#)
    }

    @Test("a budget that cannot afford the regions reports more steps than its bound", arguments: [1, 10, 500])
    func refusedUpFront(bound: Int) throws {
        let policy = try Self.policy()
        let limits = PolicyAnalysis.Limits(steps: bound)
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        // Over the bound, and only just: the rest of the budget and one step are charged.
        #expect(report.steps > bound && report.steps <= bound + 1, "reported \(report.steps)")
        #expect(report.handlers.allSatisfy { $0.reachable == nil && $0.unknownReason?.contains("ran out of steps") == true })
        let compared = PolicyAnalysis.equivalence(policy, policy, limits: limits)
        #expect(compared.equivalent == nil && compared.steps > bound, "reported \(compared.steps)")
        let query = PolicyAnalysis.query(policy, reaching: .verdict(.cancel), within: nil, limits: limits)
        #expect(query.reachable == nil && query.steps > bound, "reported \(query.steps)")
    }

    @Test("a run within its bound reports at most the bound, and the same steps every time")
    func withinTheBound() throws {
        let policy = try Self.policy()
        let report = PolicyAnalysis.reachabilityReport(policy)
        #expect(report.handlers.allSatisfy { $0.reachable == true })
        #expect(report.steps > 0 && report.steps <= PolicyAnalysis.Limits().steps)
        #expect(PolicyAnalysis.reachabilityReport(policy).steps == report.steps)
    }

    @Test("a cancelled run is unknown and reports what it spent, within the bound")
    func cancelled() throws {
        let policy = try Self.policy()
        let limits = PolicyAnalysis.Limits(steps: 1_000_000, isCancelled: { true })
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        #expect(report.steps <= 1_000_000)
        #expect(report.handlers.contains { $0.unknownReason?.contains("stopped before it finished") == true })
    }
}
