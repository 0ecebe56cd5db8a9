import Foundation
import JSONSupport
import Synchronization

/// Where a `policySource` daemon stands: what `/metrics` (`navpolicyd_policy_source_*`), the
/// `policySource` member of `/v1/status` and the status page say. Written by the poller only;
/// nothing is rendered by a daemon without `policySource`.
final class PolicySourceReport: Sendable {
    /// One value, read and changed whole under the lock.
    struct State: Sendable {
        var url: String?
        /// The bundle deciding now: its revision, signed `policyVersion` and `expiresAt`.
        var revision: String?
        var policyVersion: Int?
        var expiresAt: Int?
        /// Where the policy deciding came from: `source` (fetched) or `cacheFile` (at start).
        var origin: String?
        var lastAttempt: Date?
        var lastSuccess: Date?
        /// The outcome of the last poll: `updated`, `renewed`, `unchanged`, `not-modified`, `failed`.
        var lastResult: String?
        var lastFailure: (at: Date, failure: PolicySourceFailure)?
        var consecutiveFailures = 0
        var failures: [String: UInt64] = [:]
        var polls: [String: UInt64] = [:]
        /// Seconds the last swap took, from the staged body to the new policy deciding.
        var lastSwapSeconds: Double?
    }

    private let state = Mutex(State())

    init() {}

    /// The report now.
    var current: State { state.withLock { $0 } }

    func update(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
    }

    /// Counts a poll that ended with `result` (a success unless `failure` is given).
    func recordPoll(result: String, failure: PolicySourceFailure? = nil, at date: Date = Date()) {
        state.withLock { state in
            state.lastAttempt = date
            state.lastResult = result
            state.polls[result, default: 0] += 1
            if let failure {
                state.failures[failure.reason, default: 0] += 1
                state.lastFailure = (date, failure)
                state.consecutiveFailures += 1
            } else {
                state.lastSuccess = date
                state.consecutiveFailures = 0
            }
        }
    }

    /// The metric families in Prometheus text format; empty when no source is configured.
    func render() -> String {
        let state = current
        guard state.url != nil else { return "" }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family(
            "navpolicyd_policy_source_last_success_timestamp_seconds", "gauge",
            "When a poll of policySource last ended well (a bundle taken, or none newer); 0 before one.")
        out += "navpolicyd_policy_source_last_success_timestamp_seconds \(Self.seconds(state.lastSuccess))\n"
        family(
            "navpolicyd_policy_source_last_attempt_timestamp_seconds", "gauge", "When policySource was last polled; 0 before.")
        out += "navpolicyd_policy_source_last_attempt_timestamp_seconds \(Self.seconds(state.lastAttempt))\n"
        family(
            "navpolicyd_policy_source_failures_total", "counter",
            "Polls of policySource that kept the policy held, by reason (unreachable, timeout, too-large, http-status, bad-signature, older-version, expired, ...)."
        )
        for (reason, count) in state.failures.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_policy_source_failures_total{reason=\"\(reason)\"} \(count)\n"
        }
        family("navpolicyd_policy_source_polls_total", "counter", "Polls of policySource, by result.")
        for (result, count) in state.polls.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_policy_source_polls_total{result=\"\(result)\"} \(count)\n"
        }
        family(
            "navpolicyd_policy_source_version", "gauge",
            "The signed policyVersion of the pulled bundle deciding now; 0 before the first good one.")
        out += "navpolicyd_policy_source_version \(state.policyVersion ?? 0)\n"
        family(
            "navpolicyd_policy_source_expires_timestamp_seconds", "gauge",
            "The signed expiresAt of the bundle deciding now (a restart refuses it after this); 0 before one.")
        out += "navpolicyd_policy_source_expires_timestamp_seconds \(state.expiresAt ?? 0)\n"
        family(
            "navpolicyd_policy_source_consecutive_failures", "gauge", "Polls that failed in a row since the last success.")
        out += "navpolicyd_policy_source_consecutive_failures \(state.consecutiveFailures)\n"
        return out
    }

    /// The `policySource` member of `/v1/status`; nil when no source is configured.
    var statusValue: JSONValue? {
        let state = current
        guard let url = state.url else { return nil }
        var object: JSONObject = ["url": .string(url)]
        object.append("revision", state.revision.map(JSONValue.string) ?? .null)
        object.append("policyVersion", state.policyVersion.map { .number(Double($0)) } ?? .null)
        object.append("expiresAt", state.expiresAt.map { .string(Self.iso($0)) } ?? .null)
        object.append("origin", state.origin.map(JSONValue.string) ?? .null)
        object.append("lastAttempt", state.lastAttempt.map { .string(Timestamp.iso8601($0)) } ?? .null)
        object.append("lastSuccess", state.lastSuccess.map { .string(Timestamp.iso8601($0)) } ?? .null)
        object.append("lastResult", state.lastResult.map(JSONValue.string) ?? .null)
        object.append(
            "lastFailure",
            state.lastFailure.map { entry in
                .object([
                    "at": .string(Timestamp.iso8601(entry.at)), "reason": .string(entry.failure.reason),
                    "detail": .string(entry.failure.detail),
                ])
            } ?? .null)
        object.append("consecutiveFailures", .number(Double(state.consecutiveFailures)))
        object.append("lastSwapSeconds", state.lastSwapSeconds.map { .number($0) } ?? .null)
        return .object(object)
    }

    private static func seconds(_ date: Date?) -> String {
        guard let date else { return "0" }
        return String(Int(date.timeIntervalSince1970))
    }

    private static func iso(_ unixSeconds: Int) -> String {
        Timestamp.iso8601(Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}
