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
    ///
    /// - Parameter dryRun: the front end lets this cancel through (``DryRunMetrics``): the line
    ///   says `"dryRun":true` beside the decision the policy made.
    func record(
        _ decision: Decision, for navigation: NavigationRequest, snapshot: PolicySnapshot, origin: DecisionOrigin,
        dryRun: Bool = false
    ) -> String {
        let id = identifiers.nextID()
        account(decision, frontEnd: origin.frontEnd)
        var unlimited: LogAllowance?
        queueLine(
            decision, for: navigation, id: id, snapshot: snapshot, origin: origin, allowance: &unlimited, dryRun: dryRun)
        return id.text
    }

    /// Records the decision and writes its response object (the decision's members, then
    /// `decisionId` and `policyRevision`) straight into the response buffer: the hot path.
    /// The identifier never becomes a String: the answer and the log line both format it on
    /// the stack.
    ///
    /// - Parameter allowance: the log bytes the request has left (a batch's, see
    ///   ``LogAllowance``); nil for a request that decides once.
    func record(
        _ decision: Decision, for navigation: NavigationRequest, snapshot: PolicySnapshot, origin: DecisionOrigin,
        into writer: inout JSONWriter, allowance: inout LogAllowance?
    ) {
        let id = identifiers.nextID()
        account(decision, frontEnd: origin.frontEnd)
        queueLine(decision, for: navigation, id: id, snapshot: snapshot, origin: origin, allowance: &allowance)
        decision.writeOpenObject(to: &writer)
        id.writeMember(to: &writer)
        snapshot.closingRevisionMemberJSON.withUnsafeBufferPointer { writer.writeRaw(bytes: $0) }
    }

    /// Decides on `snapshot`, timing the chain walk alone (not the canonicalization before it,
    /// nor the answer and log line after it) in `navpolicyd_decision_duration_seconds`.
    func decide(
        _ request: CanonicalRequest, on snapshot: PolicySnapshot, explain: Bool = false, frontEnd: DecisionFrontEnd
    ) -> Decision {
        let start = MonotonicTime.nanoseconds()
        let decision = snapshot.policy.decide(request, explain: explain)
        metrics.recordDecisionDuration(frontEnd, nanoseconds: MonotonicTime.nanoseconds() &- start)
        return decision
    }

    /// Canonicalizes `navigation`, then decides it as ``decide(_:on:explain:frontEnd:)`` does.
    func decide(
        _ navigation: NavigationRequest, on snapshot: PolicySnapshot, explain: Bool = false, frontEnd: DecisionFrontEnd
    ) throws(NavigationRequestError) -> Decision {
        decide(try CanonicalRequest(navigation), on: snapshot, explain: explain, frontEnd: frontEnd)
    }

    /// The decision's counters in `/metrics` (and the shadow counters when it carries shadow results).
    private func account(_ decision: Decision, frontEnd: DecisionFrontEnd) {
        metrics.recordDecision(
            handler: decision.handler, decision: decision.verdict.rawValue, action: decision.action, frontEnd: frontEnd)
        metrics.shadow.record(decision)
    }

    /// Longest decision-log line, newline excluded (``DecisionLogSettings/maximumLineBytes``,
    /// where the section's smallest budget is derived from it); a longer line is written with
    /// its URLs cut (see ``writeLogLine(_:for:id:revisionTail:redaction:at:into:)``), and one
    /// still longer is dropped and counted.
    static var maximumLineBytes: Int { DecisionLogSettings.maximumLineBytes }
    /// What each URL field keeps in a line that had to be cut.
    static let truncatedURLBytes = 1024
    /// The cuts tried in turn: the second is for a decision with many shadow `{url}` locations,
    /// which at 1 KiB each could still pass the limit.
    static let cutURLBytes = [truncatedURLBytes, 128]
    /// The whole line first (nil), then each cut: built once, not per logged decision.
    private static let lineAttempts: [Int?] = [nil] + cutURLBytes.map { $0 }

    /// The buffer each request thread writes its log line into before the log copies it, so a
    /// line costs no allocation of its own (bench/decision-log-cost.sh).
    private static let lineScratch = ThreadScratch()

    /// Writes the decision's line and queues it, or counts it as dropped: a line too long even
    /// cut, one past the request's allowance, or one the full buffer refuses. Does nothing when
    /// the log is off.
    private func queueLine(
        _ decision: Decision, for navigation: NavigationRequest, id: DecisionID, snapshot: PolicySnapshot,
        origin: DecisionOrigin, allowance: inout LogAllowance?, dryRun: Bool = false
    ) {
        guard let log else { return }
        let time = UTCTime.now()
        Self.lineScratch.withWriter(reservingCapacity: 1024) { writer in
            guard
                Self.writeLogLine(
                    decision, for: navigation, id: id, origin: origin, revisionTail: snapshot.logLineEndJSON,
                    redaction: snapshot.logRedaction, at: time, into: &writer, dryRun: dryRun),
                allowance?.take(writer.bytes.count + 1) ?? true
            else {
                metrics.recordDecisionLogDrop()
                return
            }
            // A line the full buffer refuses is counted by the log itself.
            writer.bytes.withUnsafeBufferPointer { log.append($0) }
        }
    }

    /// One decision-log line (no newline), as ``writeLogLine(_:for:id:revisionTail:redaction:at:into:)``
    /// writes it; empty when it is too long even cut.
    static func logLine(
        _ decision: Decision, for navigation: NavigationRequest, id: DecisionID,
        origin: DecisionOrigin = DecisionOrigin(.decide, clientAddress: ""), revision: String,
        redaction: QueryRedaction, at time: Date
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1024)
        let written = writeLogLine(
            decision, for: navigation, id: id, origin: origin, revisionTail: logLineEnd(revision: revision),
            redaction: redaction, at: UTCTime(time.timeIntervalSince1970), into: &writer)
        return written ? writer.bytes : []
    }

    /// Writes one decision-log line (no newline) into the empty `writer`: `time`, `decisionId`,
    /// `frontend`, `clientAddress` (null when unknown), `requestId` (null when none),
    /// `request` (every field, defaults included), `decision` (without its trace), `handler`,
    /// `dryRun` (only `true`, for a cancel a front end in dry run let through), `revision`. The
    /// origin's fields are bounded where they are taken (``DecisionOrigin/requestID(_:)``,
    /// ``DecisionOrigin/address(_:)``, an address from the socket) and escaped here all the same.
    ///
    /// Every URL the line carries (`request.url`, `request.sourceURL`, `decision.url`,
    /// `decision.location`, each `decision.shadow[].location`) goes through `redaction`
    /// (`decisionLog.redactQueryParameters`, and always a userinfo password) as it is written (``LogURLWriter``); a line where
    /// it replaced anything gets `"redacted":true`, and replays skip it and count it, as its
    /// URLs are not the ones decided. This is the only place lines are built, so every front
    /// end is redacted alike.
    ///
    /// A line longer than ``maximumLineBytes`` is written again with all those URLs cut to
    /// their first ``truncatedURLBytes`` bytes (whole characters), then if need be to 128
    /// (``cutURLBytes``), and `"truncated":true` added, so the decision is still on record;
    /// replays (`diff --log`, `POST /v1/policy/diff`) skip such lines too. If even that is too
    /// long (control characters escape to six bytes each, or scores of shadow results), the
    /// writer is left empty and the result is false: the caller drops the line.
    ///
    /// - Parameter time: when the decision was taken; nil (a clock past year 9999) writes the
    ///   current time through Foundation.
    static func writeLogLine(
        _ decision: Decision, for navigation: NavigationRequest, id: DecisionID, origin: DecisionOrigin,
        revisionTail: [UInt8], redaction: QueryRedaction, at time: UTCTime?, into writer: inout JSONWriter,
        dryRun: Bool = false
    ) -> Bool {
        for cut in lineAttempts {
            writer.removeAll()
            writeLine(
                decision, for: navigation, id: id, origin: origin, revisionTail: revisionTail, at: time,
                redaction: redaction, cut: cut, into: &writer, dryRun: dryRun)
            if writer.bytes.count <= maximumLineBytes { return true }
        }
        writer.removeAll()
        return false
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary (nil limit: whole).
    static func prefix(_ text: String, bytes limit: Int?) -> String {
        guard let limit, text.utf8.count > limit else { return text }
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            used += UTF8.width(scalar)
            guard used <= limit else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    private static func writeLine(
        _ decision: Decision, for navigation: NavigationRequest, id: DecisionID, origin: DecisionOrigin,
        revisionTail: [UInt8], at time: UTCTime?, redaction: QueryRedaction, cut: Int?, into writer: inout JSONWriter,
        dryRun: Bool
    ) {
        var urls = LogURLWriter(
            redaction: redaction, cut: cut, expandable: (navigation.url, decision.url, navigation.sourceURL))
        if let time {
            // `{"time":"`, the time and its closing quote in one append.
            let opening: StaticString = #"{"time":""#
            let length = opening.utf8CodeUnitCount + UTCTime.textLength + 1
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
                _ = buffer.initialize(from: UnsafeBufferPointer(start: opening.utf8Start, count: opening.utf8CodeUnitCount))
                time.write(into: buffer, at: opening.utf8CodeUnitCount)
                buffer[length - 1] = UInt8(ascii: "\"")
                writer.writeRaw(bytes: UnsafeBufferPointer(buffer))
            }
        } else {
            writer.writeRaw(#"{"time":"#)
            writer.writeString(Timestamp.iso8601(Date()))
        }
        id.writeMember(to: &writer)
        // `"redacted":true` goes here, once the URLs after it are written and it is known.
        let redactedMarkOffset = writer.bytes.count
        if cut != nil { writer.writeRaw(#","truncated":true"#) }
        // Member names and the quotes between values are merged into as few literals as the
        // fields allow, and the enumerations are literals of their own: a line is written
        // on every logged decision, and each append costs its checks again.
        if origin.clientAddress.isEmpty {
            writer.writeRaw(#","frontend":""#)
            writer.writeStringContents(origin.frontEnd.rawValue)
            writer.writeRaw(
                origin.requestID == nil
                    ? #"","clientAddress":null,"requestId":null,"request":{"url":""# : #"","clientAddress":null,"requestId":""#)
        } else {
            writer.writeRaw(origin.frontEnd.logMembers)
            writer.writeStringContents(origin.clientAddress)
            writer.writeRaw(origin.requestID == nil ? #"","requestId":null,"request":{"url":""# : #"","requestId":""#)
        }
        if let requestID = origin.requestID {
            writer.writeStringContents(requestID)
            writer.writeRaw(#"","request":{"url":""#)
        }
        urls.writeRequestURL(navigation.url, into: &writer)
        if navigation.sourceURL == nil, navigation.navigationType == .other, navigation.targetFrame == .main,
            navigation.method == "GET"
        {
            // What a GET /v1/decide, an Envoy check of a page load and most proxied requests
            // carry: the rest of `request` in one literal, the bytes the general path below
            // writes with five appends (DecisionLogOriginTests compares the two).
            writer.writeRaw(Self.plainGETMembers)
        } else {
            writer.writeRaw(#"","method":""#)
            writer.writeStringContents(navigation.method)
            writer.writeRaw(Self.navigationTypeMembers(navigation.navigationType))
            writer.writeRaw(Self.targetFrameMembers(navigation.targetFrame))
            if let source = navigation.sourceURL {
                writer.writeRaw(#"""#)
                urls.write(source, into: &writer)
                writer.writeRaw(#"""#)
            } else {
                writer.writeRaw("null")
            }
            writer.writeRaw(#"},"decision":{"#)
        }
        decision.writeMembers(to: &writer, includingTrace: false) { url, writer in urls.write(url, into: &writer) }
        writer.writeRaw(#"},"handler":"#)
        writer.writeOptionalString(decision.handler)
        if dryRun { writer.writeRaw(#","dryRun":true"#) }
        revisionTail.withUnsafeBufferPointer { writer.writeRaw(bytes: $0) }
        if urls.redacted { writer.insertRaw(#","redacted":true"#, at: redactedMarkOffset) }
    }

    /// `,"revision":"…"}`: how every line of a policy revision ends, serialized once per
    /// snapshot (``PolicySnapshot/logLineEndJSON``).
    static func logLineEnd(revision: String) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96)
        writer.writeRaw(#","revision":"#)
        writer.writeString(revision)
        writer.writeRaw("}")
        return writer.bytes
    }

    /// The end of `request.url` to the opening of `decision` for a `GET` with the default
    /// `navigationType` and `targetFrame` and no `sourceURL`.
    static let plainGETMembers: StaticString =
        #"","method":"GET","navigationType":"other","targetFrame":"main","sourceURL":null},"decision":{"#

    /// The end of `method`'s string and the `navigationType` member, up to `targetFrame`'s opening quote.
    private static func navigationTypeMembers(_ type: NavigationType) -> StaticString {
        switch type {
        case .linkActivated: #"","navigationType":"linkActivated","targetFrame":""#
        case .formSubmitted: #"","navigationType":"formSubmitted","targetFrame":""#
        case .backForward: #"","navigationType":"backForward","targetFrame":""#
        case .reload: #"","navigationType":"reload","targetFrame":""#
        case .formResubmitted: #"","navigationType":"formResubmitted","targetFrame":""#
        case .other: #"","navigationType":"other","targetFrame":""#
        }
    }

    /// The `targetFrame` value and the `sourceURL` member's name.
    private static func targetFrameMembers(_ frame: TargetFrame) -> StaticString {
        switch frame {
        case .main: #"main","sourceURL":"#
        case .sub: #"sub","sourceURL":"#
        }
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
    /// Which enforcement point decides through it (the label of its decision times).
    let frontEnd: DecisionFrontEnd

    /// The same point recording its decisions as `frontEnd` (the proxy's `CONNECT` tunnels).
    func on(_ frontEnd: DecisionFrontEnd) -> DecisionPoint {
        DecisionPoint(store: store, recorder: recorder, frontEnd: frontEnd)
    }

    /// Decides a navigation on the current snapshot and records it exactly like `/v1/decide`.
    /// - Parameters:
    ///   - clientAddress: the client's address as this front end saw it (``DecisionOrigin``).
    ///   - requestID: Envoy's request id, checked by ``DecisionOrigin/requestID(_:)``.
    ///   - dryRun: the front end lets a cancel through (`extAuthz.dryRun`): a cancel's log line
    ///     says so (``DecisionRecorder/record(_:for:snapshot:origin:dryRun:)``).
    /// - Throws: 400 `invalid-request` for a request the policy cannot decide, 503 `no-policy`.
    func enforce(
        _ navigation: NavigationRequest, clientAddress: String, requestID: String? = nil, dryRun: Bool = false
    ) throws(ServiceProblem) -> EnforcedDecision {
        guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
        let decision: Decision
        do {
            decision = try recorder.decide(navigation, on: snapshot, frontEnd: frontEnd)
        } catch {
            throw ServiceProblem(.invalidRequest(error.description, field: error.field))
        }
        let origin = DecisionOrigin(frontEnd, clientAddress: clientAddress, requestID: requestID)
        let id = recorder.record(
            decision, for: navigation, snapshot: snapshot, origin: origin, dryRun: dryRun && decision.verdict == .cancel)
        return EnforcedDecision(decision: decision, id: id)
    }
}

/// The decision-log bytes one request may still cause: a batch's lines together take at most
/// what the client sent (its body), so a batch cannot make the log grow faster than the
/// traffic that asks for it. The first line is always written (a single decision is logged
/// whatever its body's size, as a `GET` is); later ones while they fit, the rest are dropped
/// and counted in `navpolicyd_decision_log_dropped_total`.
struct LogAllowance: Sendable {
    private var remaining: Int
    private var first = true

    /// An allowance of `bytes` (the request body's size).
    init(bytes: Int) {
        remaining = bytes
    }

    /// Whether a line of `count` bytes (newline included) may be written; charges it if so.
    mutating func take(_ count: Int) -> Bool {
        defer { first = false }
        guard first || count <= remaining else {
            remaining = 0
            return false
        }
        remaining -= count
        return true
    }
}

/// How one decision-log line writes its URLs: redacted in place (``QueryRedaction/write(_:into:)``),
/// cut for a line that is too long, and the request URL's bytes copied rather than redacted
/// and escaped again where the decision repeats it (its canonical `url` usually is the URL
/// as sent).
struct LogURLWriter {
    let redaction: QueryRedaction
    /// The cut in force (``DecisionRecorder/cutURLBytes``), nil for a whole line.
    let cut: Int?
    /// Whether ``redaction`` replaced anything in a URL written so far.
    private(set) var redacted = false
    /// The request URL and where its written form lies in the line.
    private var requestURL: (text: String, written: Range<Int>)?

    init(redaction: QueryRedaction, cut: Int?, expandable: (String, String, String?)) {
        self.redaction = redaction
        self.cut = cut
        self.expandable = expandable
    }

    /// The line's request, source and decision URLs. A location template's `{url}` puts the
    /// whole request URL, query and all, percent-encoded into a location's path, host or query
    /// value, where no parameter name shows (outside attack 9 found the secret there): a URL
    /// holding one of these URLs' expansion (``LocationTemplate/expansion(of:)``) gets the
    /// expansion of its redacted form instead. Known up front: `location` is written before
    /// the decision's `url`. A tuple, not an array: a line allocates nothing for it.
    private let expandable: (request: String, decision: String, source: String?)

    /// Writes `request.url`, remembering where, for a `decision.url` that repeats it.
    mutating func writeRequestURL(_ url: String, into writer: inout JSONWriter) {
        let start = writer.bytes.count
        write(url, into: &writer)
        requestURL = (url, start..<writer.bytes.count)
    }

    /// Writes `url` as a JSON string's contents (no quotes), redacted and cut as the line is.
    mutating func write(_ url: String, into writer: inout JSONWriter) {
        var url = url
        // Only for the other URLs (locations): and every expansion holds its scheme's colon as
        // `%3A`, so a location without one holds none. Not skipped without redacted names: a
        // userinfo password is always redacted, in a `{url}` expansion too.
        // Compared by bytes (``UTF8Bytes``): `==` normalizes a request URL of combining marks
        // first, quadratic in their run (outside attack 15, F3).
        if !url.hasSameUTF8(as: expandable.request), !url.hasSameUTF8(as: expandable.decision),
            !(expandable.source.map { url.hasSameUTF8(as: $0) } ?? false), Self.holdsEscapedColon(url)
        {
            replaceExpansion(of: expandable.request, in: &url)
            if expandable.decision != expandable.request { replaceExpansion(of: expandable.decision, in: &url) }
            if let source = expandable.source { replaceExpansion(of: source, in: &url) }
        }
        writeRedacted(url, into: &writer)
    }

    /// Whether `url` holds `%3A`, found by its bytes.
    private static func holdsEscapedColon(_ url: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in url.utf8 {
            if previous == (UInt8(ascii: "%"), UInt8(ascii: "3")), byte == UInt8(ascii: "A") { return true }
            previous = (previous.1, byte)
        }
        return false
    }

    private mutating func replaceExpansion(of source: String, in url: inout String) {
        // A source with nothing to redact (most lines) costs one scan and builds no string.
        guard !source.hasSameUTF8(as: url), let replaced = redaction.redact(source) else { return }
        let expansion = LocationTemplate.expansion(of: source)
        guard url.contains(expansion) else { return }
        url = url.replacing(expansion, with: LocationTemplate.expansion(of: replaced))
        redacted = true
    }

    private mutating func writeRedacted(_ url: String, into writer: inout JSONWriter) {
        if let requestURL, requestURL.text.hasSameUTF8(as: url) {
            // Written just before, with the same redaction and cut: the same bytes.
            writer.writeCopy(of: requestURL.written)
        } else if let cut {
            // A line that was too long (rare): its URLs are redacted first, then cut, so a cut
            // never splits a parameter's name from its marker; the line is marked redacted
            // even when the cut drops the marker.
            var text = url
            if let replaced = redaction.redact(url) {
                text = replaced
                redacted = true
            }
            writer.writeStringContents(DecisionRecorder.prefix(text, bytes: cut))
        } else if redaction.write(url, into: &writer) {
            redacted = true
        }
    }
}
