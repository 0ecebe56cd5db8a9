import Foundation
import HTTPServer
import JSONSupport

/// Logs forwards the destination guard refused as `proxy.destination_refused` events: the
/// URL's host, the address it resolved to, the client and the decision (when there was one).
///
/// The address goes to the log only: the client's answer does not say what an internal name
/// resolves to. Rate-limited like `auth.failed` (at most ``linesPerSecond`` lines a second; the
/// next line written says how many were left out), so probing internal names cannot flood the log.
final class DestinationRefusalLog: Sendable {
    static let linesPerSecond = 20

    private let log: EventLog
    private let limiter = LogRateLimiter(limit: DestinationRefusalLog.linesPerSecond, windowMilliseconds: 1_000)

    init(log: EventLog) {
        self.log = log
    }

    /// Logs one refusal (unless over the rate limit).
    func record(url: String, address: String, peer: String, decisionID: String?) {
        let (allowed, suppressed) = limiter.admit(now: Int64(Date().timeIntervalSince1970 * 1000))
        guard allowed else { return }
        var fields: JSONObject = [
            "host": .string(InternalDestinations.hostAndPort(of: url) ?? "?"), "address": .string(address),
            "peer": .string(peer), "reason": .string("internal-destination"),
        ]
        if let decisionID { fields.append("decisionId", .string(decisionID)) }
        if suppressed > 0 { fields.append("suppressedBefore", .number(Double(suppressed))) }
        log.log(.warning, "proxy.destination_refused", fields)
    }
}
