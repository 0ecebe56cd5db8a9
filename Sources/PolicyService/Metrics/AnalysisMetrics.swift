import Synchronization

/// `navpolicyd_policy_analyze_busy_total`, `navpolicyd_policy_diff_busy_total` and
/// `navpolicyd_policy_analyze_abandoned_total`: what the one-run-at-a-time limit of
/// `POST /v1/policy/analyze` and `POST /v1/policy/diff` (``AnalysisSlot``) refused, and the
/// analysis runs stopped because their client left. Apart from ``Metrics`` so the endpoints
/// wire it with a few calls.
final class AnalysisMetrics: Sendable {
    private let busy = Atomic<UInt64>(0)
    private let diffBusy = Atomic<UInt64>(0)
    private let abandoned = Atomic<UInt64>(0)

    /// An analysis request refused with 503 because another run held the slot.
    func recordBusy() { busy.add(1, ordering: .relaxed) }

    /// A diff request refused with 503 because another run held the slot.
    func recordDiffBusy() { diffBusy.add(1, ordering: .relaxed) }

    /// A run stopped early because its client closed the connection.
    func recordAbandoned() { abandoned.add(1, ordering: .relaxed) }

    /// Both families in Prometheus text format, present at 0 from the start.
    func render() -> String {
        """
        # HELP navpolicyd_policy_analyze_busy_total Policy analysis requests refused with 503 because another analysis was running.
        # TYPE navpolicyd_policy_analyze_busy_total counter
        navpolicyd_policy_analyze_busy_total \(busy.load(ordering: .relaxed))
        # HELP navpolicyd_policy_diff_busy_total Policy diff requests refused with 503 because another analysis or diff was running.
        # TYPE navpolicyd_policy_diff_busy_total counter
        navpolicyd_policy_diff_busy_total \(diffBusy.load(ordering: .relaxed))
        # HELP navpolicyd_policy_analyze_abandoned_total Policy analysis runs stopped early because their client closed the connection.
        # TYPE navpolicyd_policy_analyze_abandoned_total counter
        navpolicyd_policy_analyze_abandoned_total \(abandoned.load(ordering: .relaxed))

        """
    }
}
