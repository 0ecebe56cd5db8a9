import Foundation
import JSONSupport
import ShareIntake

/// Logs intake storage failures as `intake.storage_failed`, at most one line per
/// ``intervalMilliseconds`` (``RateLimitedEvent``: the next line written carries
/// `suppressedBefore`, the lines left out are counted in `/metrics`).
///
/// While the database is faulted (full, read-only, unreachable) every intake request fails
/// the same way; one line per request would let a single client write thousands of lines a
/// second. The first failure is logged at once, so an outage still shows the moment it starts.
final class IntakeStorageFailureLog: Sendable {
    static let intervalMilliseconds: Int64 = 10_000

    private let line: RateLimitedEvent

    init(
        log: EventLog, metrics: Metrics, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        line = RateLimitedEvent(
            "intake.storage_failed", level: .error, limit: 1, windowMilliseconds: Self.intervalMilliseconds, log: log,
            metrics: metrics, now: now)
    }

    /// Logs `failure` when it has a cause to report and the interval allows a line.
    func record(_ failure: IntakeFailure) {
        guard let cause = failure.cause else { return }
        line.record { ["kind": .string(failure.kind.rawValue), "cause": .string(cause)] }
    }
}
