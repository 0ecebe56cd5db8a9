import Foundation
import JSONSupport
import NavigationPolicy

/// The one place a decision is accounted for: it issues the `decisionId`, counts the
/// decision in `/metrics` and queues the decision-log line. `/v1/decide`, `/v1/authz`, the
/// proxy and share intake all record through it, so every decision the daemon takes is
/// counted and logged the same way (docs/operations.md, "Decision log").
struct DecisionRecorder: Sendable {
    let identifiers: DecisionIdentifiers
    let metrics: Metrics
    let log: DecisionLog?

    init(metrics: Metrics, log: DecisionLog?, identifiers: DecisionIdentifiers = DecisionIdentifiers()) {
        self.metrics = metrics
        self.log = log
        self.identifiers = identifiers
    }

    /// Counts the decision and queues its log line; returns the decision's identifier.
    func record(_ decision: Decision, for navigation: NavigationRequest, revision: String) -> String {
        let id = identifiers.next()
        account(decision)
        log?.append(Self.logLine(decision, for: navigation, id: id, revision: revision, at: Date()))
        return id
    }

    /// Records the decision and writes its response object (the decision's members, then
    /// `decisionId` and `policyRevision`) straight into the response buffer: the hot path.
    /// The identifier becomes text only when the decision log is on.
    func record(
        _ decision: Decision, for navigation: NavigationRequest, snapshot: PolicySnapshot, into writer: inout JSONWriter
    ) {
        let id = identifiers.nextID()
        account(decision)
        if let log {
            log.append(Self.logLine(decision, for: navigation, id: id.text, revision: snapshot.revision, at: Date()))
        }
        decision.writeOpenObject(to: &writer)
        id.writeMember(to: &writer)
        snapshot.closingRevisionMemberJSON.withUnsafeBufferPointer { writer.writeRaw(bytes: $0) }
    }

    /// The decision's counters in `/metrics` (and the shadow counters when it carries shadow results).
    private func account(_ decision: Decision) {
        metrics.recordDecision(handler: decision.handler, decision: decision.verdict.rawValue, action: decision.action)
        metrics.shadow.record(decision)
    }

    /// One decision-log line (no newline): `time`, `decisionId`, `request` (every field,
    /// defaults included), `decision` (without its trace), `handler`, `revision`.
    static func logLine(
        _ decision: Decision, for navigation: NavigationRequest, id: String, revision: String, at time: Date
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.writeRaw(#"{"time":"#)
        writer.writeString(Timestamp.iso8601(time))
        writer.writeRaw(#","decisionId":"#)
        writer.writeString(id)
        writer.writeRaw(#","request":{"url":"#)
        writer.writeString(navigation.url)
        writer.writeRaw(#","method":"#)
        writer.writeString(navigation.method)
        writer.writeRaw(#","navigationType":"#)
        writer.writeString(navigation.navigationType.rawValue)
        writer.writeRaw(#","targetFrame":"#)
        writer.writeString(navigation.targetFrame.rawValue)
        writer.writeRaw(#","sourceURL":"#)
        writer.writeOptionalString(navigation.sourceURL)
        writer.writeRaw(#"},"decision":{"#)
        var logged = decision
        logged.trace = nil
        logged.writeMembers(to: &writer)
        writer.writeRaw(#"},"handler":"#)
        writer.writeOptionalString(decision.handler)
        writer.writeRaw(#","revision":"#)
        writer.writeString(revision)
        writer.writeRaw("}")
        return writer.bytes
    }
}

/// A decision taken for an enforcement point, with the identifier it was logged under.
struct EnforcedDecision: Sendable {
    /// The policy's answer.
    var decision: Decision
    /// The `decisionId` written to the decision log and sent as `X-Navigation-Decision-Id`.
    var id: String
}

/// Decides navigations for the enforcement points (`/v1/authz`, the proxy): the current
/// policy snapshot decides, the recorder accounts for the decision.
struct DecisionPoint: Sendable {
    let store: PolicyStore
    let recorder: DecisionRecorder

    /// Decides a navigation on the current snapshot and records it exactly like `/v1/decide`.
    /// - Throws: 400 `invalid-request` for a request the policy cannot decide, 503 `no-policy`.
    func enforce(_ navigation: NavigationRequest) throws(ServiceProblem) -> EnforcedDecision {
        guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
        let decision: Decision
        do {
            decision = try snapshot.policy.decide(navigation, explain: false)
        } catch {
            throw ServiceProblem(.invalidRequest(error.description, field: error.field))
        }
        let id = recorder.record(decision, for: navigation, revision: snapshot.revision)
        return EnforcedDecision(decision: decision, id: id)
    }
}
