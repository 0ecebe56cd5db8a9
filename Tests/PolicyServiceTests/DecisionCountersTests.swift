import TestSelection
import Testing

@testable import PolicyService

/// The stripe's decision counters keep the last key at hand; runs, alternations and new keys
/// must all land on the right counter.
@Suite("decision counters", .tags(.sanitizerRelevant))
struct DecisionCountersTests {
    @Test("repeated, alternating and new keys are each counted under their own key")
    func countsByKey() {
        let metrics = Metrics(version: "test")
        let decisions: [(String?, String, String?)] = [
            ("sso", "allow", nil), ("sso", "allow", nil), (nil, "cancel", "block"), ("sso", "allow", nil),
            ("sso", "cancel", "logout"), (nil, "cancel", "block"), ("sso", "allow", nil),
        ]
        for (handler, decision, action) in decisions {
            metrics.recordDecision(handler: handler, decision: decision, action: action, frontEnd: .decide)
        }
        let counts = metrics.decisionCounts()
        #expect(
            counts.sinceStart == [
                Metrics.DecisionKey(handler: "sso", decision: "allow", action: ""): 4,
                Metrics.DecisionKey(handler: "", decision: "cancel", action: "block"): 2,
                Metrics.DecisionKey(handler: "sso", decision: "cancel", action: "logout"): 1,
            ])
        #expect(counts.lastMinute == counts.sinceStart)
    }

    @Test("a key equal to the last one but in new String storage still counts under it")
    func equalKeysInOtherStorage() {
        var counters = DecisionCounters()
        let handler = String(repeating: "h", count: 40)
        counters.record(Metrics.DecisionKey(handler: handler, decision: "allow", action: ""), second: 1)
        counters.record(
            Metrics.DecisionKey(handler: String(repeating: "h", count: 40), decision: "allow", action: ""), second: 1)
        var seen: [Metrics.DecisionKey: UInt64] = [:]
        counters.forEach { key, counter in seen[key] = counter.total }
        #expect(seen == [Metrics.DecisionKey(handler: handler, decision: "allow", action: ""): 2])
    }
}
