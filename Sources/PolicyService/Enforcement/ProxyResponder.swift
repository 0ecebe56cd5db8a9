import HTTPServer
import NavigationPolicy
import PolicyProxy

/// The proxy listener: decides each request on its full URL, answers cancels itself and
/// forwards allowed requests with libcurl.
///
/// Forward mode takes absolute-form targets (`GET http://host/path`) and decides on the
/// raw target, whose authority wins over any `Host` field. Reverse mode (`upstream` +
/// `publicOrigin`) decides origin-form targets on `publicOrigin + target` and forwards to
/// the upstream. The URL forwarded is the URL decided (its WHATWG serialization), so an
/// origin never sees a spelling the policy did not judge.
final class ProxyResponder: HTTPResponder {
    /// Decides and records, exactly as `/v1/authz` does.
    let decisions: DecisionPoint
    let problems = ProblemRenderer()
    let settings: ProxySettings
    let client: UpstreamClient
    /// The `navpolicyd_proxy_*` counters (the daemon's ``Metrics``).
    let metrics: Metrics
    /// `proxy.destination_refused` events.
    let refusals: DestinationRefusalLog
    /// `CONNECT`: HTTPS tunnels decided on their host.
    let tunnels: ConnectTunnels
    /// Reverse mode: `X-Forwarded-Proto` and `X-Forwarded-Host` of `publicOrigin`, derived once.
    private let forwardedOrigin: (proto: String, host: String)?
    /// Reverse mode: `publicOrigin` as the WHATWG origin serialization (lower-case host, no
    /// default port), what an absolute-form target's origin must equal.
    private let publicOriginSerialized: String?

    init(decisions: DecisionPoint, settings: ProxySettings, log: EventLog) {
        self.decisions = decisions
        self.settings = settings
        let metrics = decisions.recorder.metrics
        self.metrics = metrics
        let refusals = DestinationRefusalLog(log: log, metrics: metrics)
        self.refusals = refusals
        let problems = ProblemRenderer()
        tunnels = ConnectTunnels(
            decisions: decisions, settings: settings, metrics: metrics, log: log, refusals: refusals,
            cancelled: { enforced, request in Self.cancelled(enforced, request: request, problems: problems) })
        forwardedOrigin = settings.publicOrigin.map { origin in
            (origin.lowercased().hasPrefix("https") ? "https" : "http", String(origin.drop { $0 != ":" }.dropFirst(3)))
        }
        publicOriginSerialized = settings.publicOrigin.flatMap { try? URLRecord.parse($0).origin }
        client = UpstreamClient(
            configuration: UpstreamClient.Configuration(
                connectTimeoutMilliseconds: settings.connectTimeoutMilliseconds,
                timeoutMilliseconds: settings.timeoutMilliseconds, maxResponseBytes: settings.maxResponseBytes,
                resolve: settings.resolve.map { $0.hostAndPort + ":" + $0.address },
                transferObserver: { sent, received in metrics.recordProxyBytes(sent: sent, received: received) },
                destinationGuard: InternalDestinations.destinationGuard(for: settings)))
    }

    /// Cancels and errors are answered on the worker thread; a forward suspends the
    /// connection until the transfer loop has the origin's head (or a failure).
    func respond(to request: HTTPRequest) -> HTTPResponderResult {
        // The HTTP server hands CONNECT over only on this listener (acceptsConnect).
        // Its answers (refusals) count in navpolicyd_proxy_requests_total like any other.
        if request.method == "CONNECT" {
            let metrics = metrics
            return tunnels.route(request).map { response in
                metrics.recordProxyRequest(status: response.status.code)
                return response
            }
        }
        switch plan(request) {
        case .answer(let response):
            metrics.recordProxyRequest(status: response.status.code)
            return .now(response)
        case .forward(let upstream, let enforced):
            let client = client
            let metrics = metrics
            let refusals = refusals
            let peer = request.remoteAddress
            return .deferred { respond, _ in
                let started = ContinuousClock.now
                client.start(upstream) { outcome in
                    Self.count(outcome, since: started, in: metrics)
                    if case .destinationRefused(let address) = outcome {
                        refusals.record(url: upstream.url, address: address, peer: peer, decisionID: enforced?.id)
                    }
                    let response = Self.relay(outcome, decided: enforced)
                    metrics.recordProxyRequest(status: response.status.code)
                    respond(response)
                }
            }
        }
    }

    /// The upstream latency and, for a failure, its kind. A client that left first is not an
    /// upstream error (and nobody waited for the origin's answer); neither is a destination the
    /// guard refused (no origin was asked), which is counted as a refusal.
    private static func count(_ outcome: UpstreamOutcome, since started: ContinuousClock.Instant, in metrics: Metrics) {
        let kind: String?
        switch outcome {
        case .destinationRefused:
            metrics.recordProxyRefused(reason: ProxyMetrics.internalDestination)
            return
        case .response: kind = nil
        case .timedOut: kind = "timeout"
        case .tooLarge: kind = "too-large"
        case .failed(_, .clientGone): return
        case .failed(_, let failure): kind = failure.rawValue
        }
        let elapsed = ContinuousClock.now - started
        metrics.recordProxyUpstream(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        if let kind { metrics.recordProxyUpstreamError(kind: kind) }
    }

    enum Plan {
        case answer(HTTPResponse)
        /// Forward; with the decision that allowed it, or nil when `decide: navigations`
        /// passed a subresource request undecided.
        case forward(UpstreamRequest, EnforcedDecision?)
    }

    /// Decides what to do with one request; everything except the transfer itself.
    func plan(_ request: HTTPRequest) -> Plan {
        // One pass for both checks over the client's fields: a loop (this proxy's own Via)
        // wins over a malformed field wherever each is, as when they were two passes.
        var invalid: String?
        for field in request.headers {
            if field.name.utf8.count == 3, HTTPFieldName.via.matches(field.name), field.value.contains(UpstreamClient.via) {
                return .answer(problem(.proxyLoop))
            }
            // Only fields this proxy has checked itself are ever forwarded (defence in depth
            // against smuggling through libcurl's request: the HTTP server checks them too).
            if invalid == nil, !HeaderFieldSyntax.isValidName(field.name) || !HeaderFieldSyntax.isValidValue(field.value) {
                invalid = field.name
            }
        }
        if let invalid { return .answer(problem(.invalidHeaderField(invalid))) }
        if request.method == "HEAD" && !request.body.isEmpty { return .answer(problem(.headWithBody)) }
        let target = request.rawTarget
        let decidedURL: String
        let reverse = settings.upstream != nil
        if Self.isAbsoluteHTTP(target) {
            // In reverse mode the listener serves one site: an absolute-form target naming any
            // other origin would make it an open forward proxy (loopback admin endpoints included).
            if reverse, let publicOrigin = settings.publicOrigin {
                guard let record = try? URLRecord.parse(target), record.origin == publicOriginSerialized else {
                    return .answer(problem(.misdirectedRequest(publicOrigin: publicOrigin)))
                }
            }
            decidedURL = target
        } else if target.hasPrefix("/"), let publicOrigin = settings.publicOrigin, reverse {
            decidedURL = publicOrigin + target
        } else {
            return .answer(problem(.notAProxyRequest(reverseConfigured: reverse)))
        }
        let metadata = FetchMetadata(request.headers)
        var forwardURL: String
        var allowed: EnforcedDecision?
        if settings.decide == .navigations && !metadata.isNavigation {
            forwardURL = decidedURL
        } else {
            var navigation = NavigationRequest(url: decidedURL, method: request.method)
            metadata.apply(to: &navigation)
            let enforced: EnforcedDecision
            do throws(ServiceProblem) {
                enforced = try decisions.enforce(navigation, clientAddress: request.remoteAddress)
            } catch {
                return .answer(problems.response(error))
            }
            guard enforced.decision.verdict == .allow else {
                return .answer(Self.cancelled(enforced, request: request, problems: problems))
            }
            forwardURL = enforced.decision.url
            allowed = enforced
        }
        forwardURL = Self.withoutFragment(forwardURL)
        // The scheme is http(s) from here on: forward targets were checked above, a decided
        // URL keeps its scheme, and upstream/publicOrigin are validated http(s) origins.
        if reverse, let upstream = settings.upstream {
            forwardURL = upstream + Self.pathAndQuery(of: forwardURL)
        }
        // The client's Connection-named fields go first, so that naming X-Forwarded-For (or
        // -Proto, -Host) in Connection cannot strip the fields the proxy adds next.
        var headers = HopByHop.stripped(request.headers)
        if reverse, let forwardedOrigin {
            headers.replaceOrAdd(name: .xForwardedProto, value: forwardedOrigin.proto)
            headers.replaceOrAdd(name: .xForwardedHost, value: forwardedOrigin.host)
        }
        if !request.remoteAddress.isEmpty {
            // The client's chain is kept (as proxies do); only the last entry is this proxy's word.
            // Joined in place (no array of values): most requests carry none.
            var received = ""
            for field in headers where field.name.utf8.count == 15 && HTTPFieldName.xForwardedFor.matches(field.name) {
                received += received.isEmpty ? field.value : ", " + field.value
            }
            headers.replaceOrAdd(
                name: "X-Forwarded-For", value: received.isEmpty ? request.remoteAddress : received + ", " + request.remoteAddress
            )
        }
        return .forward(
            UpstreamRequest(url: forwardURL, method: request.method, headers: headers, body: request.body), allowed)
    }

    /// Whether `target` starts with `http://` or `https://`, scheme in any case (compared on
    /// the bytes: no lower-cased copy per request).
    static func isAbsoluteHTTP(_ target: String) -> Bool {
        let utf8 = target.utf8
        let schemeLength =
            ASCIICaseInsensitive.hasPrefix(utf8, lowercase: "https://")
            ? 8 : ASCIICaseInsensitive.hasPrefix(utf8, lowercase: "http://") ? 7 : 0
        guard schemeLength > 0 else { return false }
        // A non-ASCII byte right after "//" may be a combining mark that makes "/" part of a
        // longer character: the character-wise comparison decides that rare case, as before.
        guard let following = utf8.dropFirst(schemeLength).first, following >= 0x80 else { return true }
        let lower = target.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// `url` up to its first `#` (the fragment is never sent), cut on its contiguous UTF-8:
    /// the String's `utf8.firstIndex(of:)` cost ≈ 800 instructions for a short URL. The
    /// bytes before an ASCII `#` are whole UTF-8 sequences.
    static func withoutFragment(_ url: String) -> String {
        var url = url
        let cut = url.withUTF8 { bytes -> String? in
            guard let hash = bytes.firstIndex(of: UInt8(ascii: "#")) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<hash]), as: UTF8.self)
        }
        return cut ?? url
    }

    /// `/path?query` of an absolute http(s) URL serialization ("/" when it has no path).
    static func pathAndQuery(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "/" }
        let rest = url[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = String(rest[slash...])
        return tail.hasPrefix("/") ? tail : "/" + tail
    }

    /// 302 to the handler's location, else 403 (or the handler's `response.status`) with a
    /// policy page or a problem, and the handler's `response.headers` (``DenialShape``).
    static func cancelled(_ enforced: EnforcedDecision, request: HTTPRequest, problems: ProblemRenderer) -> HTTPResponse {
        var response: HTTPResponse
        if let location = enforced.decision.location {
            response = HTTPResponse(status: 302, headers: HTTPHeaders([(.location, location)]))
        } else if Self.acceptsHTML(request.headers[.accept] ?? "") {
            response = HTTPResponse(
                status: HTTPStatus(code: DenialShape.status(of: enforced.decision)),
                headers: .contentType("text/html; charset=utf-8"), body: Array(PolicyPage.html(for: enforced).utf8))
        } else if let body = CancelledProblemBody.bytes(for: enforced.decision) {
            response = .json(status: 403, body: body, contentType: "application/problem+json")
        } else {
            response = problems.cancelled(enforced.decision)
        }
        Self.updateHeaders(of: &response, adding: 5) { headers in
            headers.add(name: .cacheControl, value: "no-store")
            EnforcementHeaders.add(enforced.decision, id: enforced.id, includeLocation: false, to: &headers)
            DenialShape.forEachField(of: enforced.decision) { headers.add(name: HTTPFieldName($0), value: $1) }
        }
        return response
    }

    /// Changes `response`'s fields in one unique copy with room for `adding` more fields:
    /// appending through the property one field at a time copied or grew the field array
    /// (cancel and allow answers both add up to five).
    private static func updateHeaders(
        of response: inout HTTPResponse, adding: Int, _ change: (inout HTTPHeaders) -> Void
    ) {
        var headers = response.headers
        // The response's reference is dropped, so `headers` owns its storage and grows in place.
        response.headers = HTTPHeaders()
        headers.reserveCapacity(headers.count + adding)
        change(&headers)
        response.headers = headers
    }

    /// Whether an `Accept` value names `text/html` (any case): browsers get the policy page.
    /// Compared on the bytes in place: this runs for every cancel.
    static func acceptsHTML(_ accept: String) -> Bool {
        var accept = accept
        return accept.withUTF8 { bytes in
            guard bytes.count >= htmlMediaType.utf8CodeUnitCount else { return false }
            return (0...bytes.count - htmlMediaType.utf8CodeUnitCount).contains { start in
                ASCIICaseInsensitive.hasPrefix(bytes[start...], lowercase: htmlMediaType)
            }
        }
    }

    private static let htmlMediaType: StaticString = "text/html"

    private func problem(_ problem: ProblemDetails) -> HTTPResponse {
        problems.response(problem)
    }

    private static func relay(_ outcome: UpstreamOutcome, decided: EnforcedDecision?) -> HTTPResponse {
        var response = relayed(outcome)
        // The origin's answer carries this proxy's word on the decision, never the origin's:
        // an origin could otherwise claim "X-Navigation-Decision: cancel" or a handler.
        // Rebuilt only when the origin sent one: this runs for every forwarded answer.
        if response.headers.contains(where: { Self.isDecisionHeader($0.name) }) {
            response.headers = HTTPHeaders(
                response.headers.filter { !Self.isDecisionHeader($0.name) }.map { ($0.name, $0.value) })
        }
        if let decided {
            updateHeaders(of: &response, adding: 4) { headers in
                EnforcementHeaders.add(decided.decision, id: decided.id, includeLocation: false, to: &headers)
            }
        }
        return response
    }

    /// Whether `name` is one of the `X-Navigation-*` fields (ASCII case-insensitive).
    static func isDecisionHeader(_ name: String) -> Bool {
        let prefix: StaticString = "x-navigation-"
        return name.utf8.count > prefix.utf8CodeUnitCount && ASCIICaseInsensitive.hasPrefix(name.utf8, lowercase: prefix)
    }

    private static func relayed(_ outcome: UpstreamOutcome) -> HTTPResponse {
        let problems = ProblemRenderer()
        switch outcome {
        case .response(let response):
            return response
        case .failed(let reason, _):
            return problems.response(
                ProblemDetails(
                    kind: "bad-gateway", title: "Bad gateway", status: 502,
                    detail: "The origin could not be reached: \(reason)."))
        case .timedOut(let reason):
            return problems.response(
                ProblemDetails(
                    kind: "gateway-timeout", title: "Gateway timeout", status: 504,
                    detail: "The origin did not answer in time: \(reason)."))
        case .tooLarge(let limit):
            return problems.response(
                ProblemDetails(
                    kind: "bad-gateway", title: "Bad gateway", status: 502,
                    detail: "The origin's response is larger than proxy.maxResponseBytes (\(limit) bytes)."))
        case .destinationRefused:
            return problems.response(.internalDestination)
        }
    }
}

extension ProblemDetails {
    /// 400: an origin-form or authority-form target on the forward proxy.
    static func notAProxyRequest(reverseConfigured: Bool) -> ProblemDetails {
        ProblemDetails(
            kind: "not-a-proxy-request", title: "Bad request", status: 400,
            detail: reverseConfigured
                ? "This is a reverse proxy: send a path such as GET /x (or an absolute URL on proxy.publicOrigin)."
                : "This is a forward proxy: send an absolute-form target such as GET http://host/path, "
                    + "or configure proxy.upstream and proxy.publicOrigin for reverse mode.")
    }

    /// 400: a header field this proxy will not forward (not a token name, or a control
    /// character in the value): such a field could hide a second request.
    static func invalidHeaderField(_ name: String) -> ProblemDetails {
        let printable = String(
            decoding: name.utf8.prefix(64).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        return ProblemDetails(
            kind: "invalid-header-field", title: "Bad request", status: 400,
            detail: "The header field \"\(printable)\" has a name that is not a token or a value with a control character; "
                + "the proxy forwards only well-formed fields.")
    }

    /// 400: HEAD has no body to forward.
    static let headWithBody = ProblemDetails(
        kind: "invalid-request", title: "Bad request", status: 400,
        detail: "A HEAD request must not carry a body; the proxy will not forward one.")

    /// 421: reverse mode serves only `publicOrigin`; any other absolute-form target is refused.
    static func misdirectedRequest(publicOrigin: String) -> ProblemDetails {
        ProblemDetails(
            kind: "misdirected-request", title: "Misdirected request", status: 421,
            detail: "This listener is a reverse proxy for \(publicOrigin) only: send a path (GET /x) or an absolute URL "
                + "on that origin. It does not forward to other hosts.")
    }

    /// 403: the destination resolved to an internal address the operator did not pin. The
    /// address itself is logged, not told: the client learns nothing of internal names.
    static let internalDestination = ProblemDetails(
        kind: "internal-destination", title: "Forbidden", status: 403,
        detail: "The destination is an internal address (loopback, unspecified, private or link-local) and this proxy "
            + "does not connect to those unless the operator pinned the destination (proxy.resolve, proxy.upstream).")

    /// 508: the request already passed through this proxy (it was pointed at itself).
    static let proxyLoop = ProblemDetails(
        kind: "proxy-loop", title: "Loop detected", status: 508,
        detail: "The request already carries this proxy's Via; it would loop.")
}
