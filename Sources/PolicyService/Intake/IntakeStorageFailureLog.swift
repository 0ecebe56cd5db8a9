import Foundation
import HTTPServer
import JSONSupport
import ShareIntake

/// Logs intake storage failures as `intake.storage_failed`, at most one line per
/// ``intervalMilliseconds`` (the next line written carries `suppressedBefore`), and counts
/// the lines left out in `/metrics`.
///
/// While the database is faulted (full, read-only, unreachable) every intake request fails
/// the same way; one line per request would let a single client write thousands of lines a
/// second. The first failure is logged at once, so an outage still shows the moment it starts.
final class IntakeStorageFailureLog: Sendable {
    static let intervalMilliseconds: Int64 = 10_000

    private let log: EventLog
    private let metrics: Metrics
    private let limiter = LogRateLimiter(limit: 1, windowMilliseconds: IntakeStorageFailureLog.intervalMilliseconds)
    /// Milliseconds on any monotonic-enough scale (a test passes its own clock).
    private let now: @Sendable () -> Int64

    init(
        log: EventLog, metrics: Metrics, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.log = log
        self.metrics = metrics
        self.now = now
    }

    /// Logs `failure` when it has a cause to report and the interval allows a line.
    func record(_ failure: IntakeFailure) {
        guard let cause = failure.cause else { return }
        let (allowed, suppressed) = limiter.admit(now: now())
        guard allowed else {
            metrics.recordSuppressedLogLine(event: "intake.storage_failed")
            return
        }
        var fields: JSONObject = ["kind": .string(failure.kind.rawValue), "cause": .string(cause)]
        if suppressed > 0 { fields.append("suppressedBefore", .number(Double(suppressed))) }
        log.log(.error, "intake.storage_failed", fields)
    }
}
