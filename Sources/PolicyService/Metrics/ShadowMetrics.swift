public import NavigationPolicy
import Synchronization

/// `navpolicyd_shadow_decisions_total{handler,decision}`: what shadow-mode handlers would
/// have decided. Kept apart from ``Metrics`` so the counter can be wired with two calls:
/// ``record(_:)`` where a decision is recorded, ``render()`` appended to the exposition.
public final class ShadowMetrics: Sendable {
    private struct Key: Hashable {
        var handler: String
        var decision: String
    }

    /// Totals and the last minute (for the status page) in one value per key.
    private let counts = Mutex<[Key: DecisionCounter]>([:])

    public init() {}

    /// Counts each entry of the decision's `shadow` list; free when there is none.
    public func record(_ decision: Decision) {
        guard let shadow = decision.shadow else { return }
        let second = RecentCounts.currentSecond()
        counts.withLock { counts in
            for result in shadow {
                counts[Key(handler: result.handler, decision: result.verdict.rawValue), default: DecisionCounter()]
                    .record(second: second)
            }
        }
    }

    /// What shadow handlers would have decided, since start and over the last minute, keyed
    /// like ``Metrics/decisionCounts()`` (the action is empty).
    func decisionCounts() -> (sinceStart: [Metrics.DecisionKey: UInt64], lastMinute: [Metrics.DecisionKey: UInt64]) {
        let now = RecentCounts.currentSecond()
        var sinceStart: [Metrics.DecisionKey: UInt64] = [:]
        var lastMinute: [Metrics.DecisionKey: UInt64] = [:]
        for (key, counter) in counts.withLock({ $0 }) {
            let metricsKey = Metrics.DecisionKey(handler: key.handler, decision: key.decision, action: "")
            sinceStart[metricsKey] = counter.total
            let recent = counter.recent.sum(upTo: now)
            if recent > 0 { lastMinute[metricsKey] = recent }
        }
        return (sinceStart, lastMinute)
    }

    /// The metric family in Prometheus text format; HELP and TYPE even before the first sample.
    public func render() -> String {
        let snapshot = counts.withLock { $0 }
        var out =
            "# HELP navpolicyd_shadow_decisions_total Decisions shadow-mode handlers would have made, by handler and decision.\n"
        out += "# TYPE navpolicyd_shadow_decisions_total counter\n"
        for (key, count) in snapshot.sorted(by: { ($0.key.handler, $0.key.decision) < ($1.key.handler, $1.key.decision) }) {
            out +=
                "navpolicyd_shadow_decisions_total{handler=\"\(escape(key.handler))\",decision=\"\(key.decision)\"} \(count.total)\n"
        }
        return out
    }

    /// Handler names are restricted to `A-Z a-z 0-9 - _ .`, but the exposition format is escaped anyway.
    private func escape(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}
