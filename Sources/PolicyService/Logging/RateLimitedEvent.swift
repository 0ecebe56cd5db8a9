import Foundation
import HTTPServer
import JSONSupport

/// One kind of log line that a client can cause at will (a refused token, a refused
/// connection, a storage failure), written at most `limit` times per window: the next line
/// written says how many were left out (`suppressedBefore`), and every line left out is counted
/// in `navpolicyd_log_lines_suppressed_total{event}`.
///
/// Without the bound one client turns its own requests into thousands of log lines a second
/// (issue 38 item 11); the counter keeps the true number visible when the lines are not.
final class RateLimitedEvent: Sendable {
    /// The event name every line carries (`auth.failed`, `grpc.connection_refused`, …).
    let event: String
    private let level: EventLog.Level
    private let log: EventLog
    private let metrics: Metrics?
    private let limiter: LogRateLimiter
    /// Milliseconds on any monotonic-enough scale (a test passes its own clock).
    private let now: @Sendable () -> Int64

    /// At most `limit` lines of `event` per `windowMilliseconds`; lines left out are counted in
    /// `metrics` when given.
    init(
        _ event: String, level: EventLog.Level, limit: Int, windowMilliseconds: Int64, log: EventLog,
        metrics: Metrics?, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.event = event
        self.level = level
        self.log = log
        self.metrics = metrics
        self.limiter = LogRateLimiter(limit: limit, windowMilliseconds: windowMilliseconds)
        self.now = now
        metrics?.declareSuppressedLogLines(event: event)
    }

    /// Writes one line with `fields` (built only when the line is written), or counts it as left out.
    func record(_ fields: () -> JSONObject) {
        let (allowed, suppressed) = limiter.admit(now: now())
        guard allowed else {
            metrics?.recordSuppressedLogLine(event: event)
            return
        }
        var object = fields()
        if suppressed > 0 { object.append("suppressedBefore", .number(Double(suppressed))) }
        log.log(level, event, object)
    }
}
