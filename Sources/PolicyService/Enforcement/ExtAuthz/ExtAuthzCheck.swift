import HTTPServer
import JSONSupport
import NavigationPolicy

/// The one mapping between Envoy's external authorization and the policy: an
/// ``ExtAuthzRequest`` in, an ``ExtAuthzAnswer`` out. The HTTP service and the gRPC `Check`
/// listener both call it, so the two transports cannot decide the same request differently.
///
/// The URL decided is `scheme://host` + `path`, exactly as Envoy reports the original request,
/// and without the port when `host` names one (``ClientAuthority``: a cancel in either wins);
/// `Sec-Fetch-Mode`/`Sec-Fetch-Dest` among the forwarded headers say the navigation type and
/// target frame (``FetchMetadata``, read strictly). No other header is read: what a client
/// sends can never choose the decision (docs/envoy.md, "Trusted fields").
///
/// With `extAuthz.dryRun` every decided check is allowed: a cancel is logged as such with
/// `"dryRun":true`, counted in `navpolicyd_dry_run_cancels_total{frontend}` and marked
/// upstream with `x-navigation-dry-run: cancel` (docs/envoy.md, "Dry run").
struct ExtAuthzCheck: Sendable {
    let decisions: DecisionPoint
    let settings: ExtAuthzSettings
    /// The transport asking, for `navpolicyd_ext_authz_checks_total` (from the point's front end).
    let transport: ExtAuthzMetrics.Transport
    private let problems = ProblemRenderer()

    init(decisions: DecisionPoint, settings: ExtAuthzSettings) {
        self.decisions = decisions
        self.settings = settings
        transport = decisions.frontEnd == .extAuthzGRPC ? .grpc : .http
        decisions.recorder.metrics.extAuthz.enable()
        if settings.dryRun { decisions.recorder.metrics.dryRun.enable() }
    }

    /// Never throws: a request that cannot be decided (bad scheme, host, path, method) is a
    /// deny with status 400 and a problem body (fail closed). Every check is counted in
    /// `navpolicyd_ext_authz_checks_total`.
    func check(_ request: ExtAuthzRequest) -> ExtAuthzAnswer {
        do throws(ServiceProblem) {
            // Host is the client's `Host`/`:authority`: its port is the client's choice (ClientAuthority).
            var navigation = try ClientAuthority.navigation(url: try Self.url(of: request), method: request.method, field: "host")
            FetchMetadata(request.headers).apply(to: &navigation)
            let enforced = try decisions.enforce(
                navigation, clientAddress: request.clientAddress, requestID: request.requestID, dryRun: settings.dryRun)
            // By what Envoy is told: under dry run every decided check is let through.
            count(enforced.decision.verdict == .allow || settings.dryRun ? .allow : .deny)
            return answer(enforced)
        } catch {
            count(error.details.status.code == 400 ? .invalid : .deny)
            return refusal(problems.response(error))
        }
    }

    /// Counts a check by what it got (the transports count the checks they refuse themselves
    /// before asking here: malformed protobuf, a missing placing field).
    func count(_ result: ExtAuthzMetrics.Result) {
        decisions.recorder.metrics.extAuthz.record(transport, result)
    }

    /// The URL to decide, or 400 when a field could move it or leave it undecidable.
    static func url(of request: ExtAuthzRequest) throws(ServiceProblem) -> String {
        let scheme = request.scheme.lowercased()
        // By bytes: `==` normalizes a value of combining marks first (outside attack 15, F6).
        guard scheme.hasSameUTF8(as: "http") || scheme.hasSameUTF8(as: "https") else {
            throw ServiceProblem(
                .invalidRequest(
                    "the original scheme must be http or https, not \"\(request.scheme)\" (HTTP service: "
                        + "X-Forwarded-Proto, set by Envoy)", field: "scheme"))
        }
        guard !request.host.isEmpty, ClientAuthority.isHostField(request.host) else {
            throw ServiceProblem(
                .invalidRequest(
                    "the original host must be a non-empty host[:port]: the decision is taken on the host the client "
                        + "asked for", field: "host"))
        }
        guard request.path.hasPrefix("/") else {
            throw ServiceProblem(
                .invalidRequest(
                    "the original path must be origin-form, starting with \"/\" (an asterisk or absolute-form target "
                        + "names no page to decide)", field: "path"))
        }
        guard !ForwardedTargetSyntax.isReinterpreted(request.path) else {
            throw ServiceProblem(.invalidRequest("the original path \(ForwardedTargetSyntax.refusal)", field: "path"))
        }
        return scheme + "://" + request.host + request.path
    }

    /// Allow → 200 with the decision fields for the upstream; cancel → 302 to the handler's
    /// location, or the handler's `response.status` (403 by default) with the
    /// `navigation-cancelled` problem and the handler's `response.headers` (``DenialShape``);
    /// a cancel in dry run → an allow (``dryRunAllow(_:)``).
    private func answer(_ enforced: EnforcedDecision) -> ExtAuthzAnswer {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(8)
        let decision = enforced.decision
        if decision.verdict == .allow {
            EnforcementHeaders.forEachField(
                of: decision, id: enforced.id, includeLocation: false, lowercase: true, includeShadow: true
            ) { fields.append((name: $0, value: $1)) }
            return ExtAuthzAnswer(
                allowed: true, status: 200, upstreamHeaders: fields, clientHeaders: [], body: [], decisionID: enforced.id)
        }
        if settings.dryRun { return dryRunAllow(enforced) }
        let status = DenialShape.status(of: decision)
        var body: [UInt8] = []
        if let location = decision.location {
            fields.append((name: "location", value: location))
        } else {
            fields.append((name: "content-type", value: "application/problem+json"))
            body = CancelledProblemBody.bytes(for: decision) ?? problems.cancelled(decision).bodyBytes
        }
        fields.append((name: "cache-control", value: "no-store"))
        EnforcementHeaders.forEachField(
            of: decision, id: enforced.id, includeLocation: false, lowercase: true, includeShadow: true
        ) { fields.append((name: $0, value: $1)) }
        DenialShape.forEachField(of: decision) { fields.append((name: $0, value: $1)) }
        return ExtAuthzAnswer(
            allowed: false, status: status, upstreamHeaders: [], clientHeaders: fields, body: body, decisionID: enforced.id)
    }

    /// A cancel let through: the upstream gets `x-navigation-decision: allow` (what was
    /// enforced), `x-navigation-dry-run: cancel`, the decision id and shadow results, but not
    /// the handler or action, which an app could act on; Envoy removes the handler's
    /// `response.removeRequestHeaders` before forwarding. Already logged with `"dryRun":true`.
    private func dryRunAllow(_ enforced: EnforcedDecision) -> ExtAuthzAnswer {
        decisions.recorder.metrics.dryRun.record(frontend: decisions.frontEnd.rawValue)
        var allowed = enforced.decision
        allowed.verdict = .allow
        allowed.handler = nil
        allowed.action = nil
        var fields: [(name: String, value: String)] = [(name: EnforcementHeaders.dryRunLowercase, value: "cancel")]
        EnforcementHeaders.forEachField(
            of: allowed, id: enforced.id, includeLocation: false, lowercase: true, includeShadow: true
        ) { fields.append((name: $0, value: $1)) }
        return ExtAuthzAnswer(
            allowed: true, status: 200, upstreamHeaders: fields, clientHeaders: [], body: [], decisionID: enforced.id,
            removeUpstreamHeaders: enforced.decision.response?.removeRequestHeaders ?? [])
    }

    /// A problem (400 undecidable, 503 no policy) as a deny: Envoy sends it to the client.
    private func refusal(_ response: HTTPResponse) -> ExtAuthzAnswer {
        var fields: [(name: String, value: String)] = [(name: "cache-control", value: "no-store")]
        for field in response.headers { fields.append((name: field.name.lowercased(), value: field.value)) }
        return ExtAuthzAnswer(
            allowed: false, status: response.status.code, upstreamHeaders: [], clientHeaders: fields, body: response.bodyBytes,
            decisionID: nil)
    }
}
