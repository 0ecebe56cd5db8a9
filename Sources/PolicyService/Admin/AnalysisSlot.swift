import HTTPServer
import Synchronization

/// One `POST /v1/policy/analyze` or `POST /v1/policy/diff` run at a time per daemon.
///
/// A run is bounded in steps (about a second of one core), but runs side by side were not:
/// four concurrent bodies held both cores for 25 CPU-seconds (outside attack 9, F6), time the
/// decision endpoints on the same workers need. A second request while a run works is refused
/// with 503 and `Retry-After` rather than queued: a queue would hold suspended connections
/// and still let a client line up unbounded work.
///
/// Diff and analyze share the one slot (issue 38, item 12: 8 MiB diff bodies side by side held
/// the cores as analyses did): the slot exists to leave the other cores to decisions, and two
/// slots would let one analysis and one diff take two cores, all of a 2-core machine. Both are
/// admin-token work, so only admins wait on each other.
final class AnalysisSlot: Sendable {
    private let busy = Atomic<Bool>(false)

    init() {}

    /// Takes the slot; false (nothing taken) while another run holds it.
    func take() -> Bool {
        busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Frees the slot; called once by the run that took it, before it answers, so a client
    /// that sends its next body as soon as it has the answer is not refused.
    func release() {
        busy.store(false, ordering: .releasing)
    }

    /// Set once by a run whose client left and so stopped it: only such runs count as
    /// abandoned, not one that finished while its client was already gone.
    final class Mark: Sendable {
        private let value = Atomic<Bool>(false)

        func set() { value.store(true, ordering: .relaxed) }

        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    /// Seconds a refused client is told to wait: about one run at the step bound.
    static let retryAfterSeconds = 2

    /// 503 `analysis-busy`, with `Retry-After`.
    static let busyProblem = ServiceProblem(
        ProblemDetails(
            kind: "analysis-busy", title: "Another analysis or diff is running", status: 503,
            detail:
                "This daemon runs one policy analysis or diff at a time and one is running now; retry after \(retryAfterSeconds) seconds.",
            extensions: ["retryAfter": .number(Double(retryAfterSeconds))]),
        headers: HTTPHeaders([(.retryAfter, String(retryAfterSeconds))]))
}
