import JSONSupport

/// Logs forwards the destination guard refused as `proxy.destination_refused` events: the
/// URL's host, the address it resolved to, the client and the decision (when there was one).
///
/// The address goes to the log only: the client's answer does not say what an internal name
/// resolves to. Rate-limited like `auth.failed` (``RateLimitedEvent``: at most
/// ``linesPerSecond`` lines a second), so probing internal names cannot flood the log.
final class DestinationRefusalLog: Sendable {
    static let linesPerSecond = 20

    private let line: RateLimitedEvent

    init(log: EventLog, metrics: Metrics? = nil) {
        line = RateLimitedEvent(
            "proxy.destination_refused", level: .warning, limit: Self.linesPerSecond, windowMilliseconds: 1_000,
            log: log, metrics: metrics)
    }

    /// Logs one refusal (unless over the rate limit).
    func record(url: String, address: String, peer: String, decisionID: String?) {
        line.record {
            var fields: JSONObject = [
                "host": .string(InternalDestinations.hostAndPort(of: url) ?? "?"), "address": .string(address),
                "peer": .string(peer), "reason": .string("internal-destination"),
            ]
            if let decisionID { fields.append("decisionId", .string(decisionID)) }
            return fields
        }
    }
}
