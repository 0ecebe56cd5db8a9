import Synchronization

/// `navpolicyd_dry_run_cancels_total{frontend}`: cancels a front end in dry run let through
/// (`extAuthz.dryRun`). Kept apart from ``Metrics`` so it is wired with two calls: ``record(frontend:)``
/// where a front end lets a cancel through, ``render()`` appended to the exposition. Counted
/// only on that path: a front end not in dry run never touches it, and the family is shown
/// once a listener runs dry (``enable()``), so a daemon without dry run shows none of it.
final class DryRunMetrics: Sendable {
    /// The front ends that can run dry, each shown from start (0) so an alert has a series.
    static let frontends = ["ext_authz_http", "ext_authz_grpc"]

    private let enabled = Atomic<Bool>(false)
    private let counts = Mutex<[String: UInt64]>(Dictionary(uniqueKeysWithValues: frontends.map { ($0, 0) }))

    /// Shows the family in `/metrics`: a listener in dry run calls it at start.
    func enable() {
        enabled.store(true, ordering: .relaxed)
    }

    /// Counts one cancel `frontend` did not enforce.
    func record(frontend: String) {
        counts.withLock { $0[frontend, default: 0] += 1 }
    }

    /// The cancels let through by `frontend` since start.
    func count(frontend: String) -> UInt64 {
        counts.withLock { $0[frontend] ?? 0 }
    }

    /// The metric family in Prometheus text format.
    func render() -> String {
        guard enabled.load(ordering: .relaxed) else { return "" }
        var out =
            "# HELP navpolicyd_dry_run_cancels_total Cancels the policy decided that a front end in dry run allowed, by front end.\n"
        out += "# TYPE navpolicyd_dry_run_cancels_total counter\n"
        for (frontend, count) in counts.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_dry_run_cancels_total{frontend=\"\(frontend)\"} \(count)\n"
        }
        return out
    }
}
