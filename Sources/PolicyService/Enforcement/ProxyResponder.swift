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
final class ProxyResponder: HTTPRoutingResponder {
    let api: PolicyAPI
    let settings: ProxySettings
    let client: UpstreamClient
    /// Reverse mode: `X-Forwarded-Proto` and `X-Forwarded-Host` of `publicOrigin`, derived once.
    private let forwardedOrigin: (proto: String, host: String)?

    init(api: PolicyAPI, settings: ProxySettings) {
        self.api = api
        self.settings = settings
        forwardedOrigin = settings.publicOrigin.map { origin in
            (origin.lowercased().hasPrefix("https") ? "https" : "http", String(origin.drop { $0 != ":" }.dropFirst(3)))
        }
        client = UpstreamClient(
            configuration: UpstreamClient.Configuration(
                connectTimeoutMilliseconds: settings.connectTimeoutMilliseconds,
                timeoutMilliseconds: settings.timeoutMilliseconds, maxResponseBytes: settings.maxResponseBytes,
                resolve: settings.resolve.map { $0.hostAndPort + ":" + $0.address }))
    }

    /// Cancels and errors are answered on the worker thread; a forward suspends the
    /// connection until the transfer loop has the origin's head (or a failure).
    func route(_ request: HTTPRequest) -> HTTPResponderResult {
        switch plan(request) {
        case .answer(let response):
            return .now(response)
        case .forward(let upstream):
            let client = client
            return .deferred { respond in
                client.start(upstream) { outcome in respond(Self.relay(outcome)) }
            }
        }
    }

    enum Plan {
        case answer(HTTPResponse)
        case forward(UpstreamRequest)
    }

    /// Decides what to do with one request; everything except the transfer itself.
    func plan(_ request: HTTPRequest) -> Plan {
        if request.headers.contains(where: { HTTPHeaders.namesMatch($0.name, "Via") && $0.value.contains(UpstreamClient.via) }) {
            return .answer(problem(.proxyLoop))
        }
        let target = request.rawTarget
        let lower = target.prefix(8).lowercased()
        let decidedURL: String
        let reverse: Bool
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            decidedURL = target
            reverse = false
        } else if target.hasPrefix("/"), let publicOrigin = settings.publicOrigin, settings.upstream != nil {
            decidedURL = publicOrigin + target
            reverse = true
        } else {
            return .answer(problem(.notAProxyRequest(reverseConfigured: settings.upstream != nil)))
        }
        let metadata = FetchMetadata(request.headers)
        var forwardURL: String
        if settings.decide == .navigations && !metadata.isNavigation {
            forwardURL = decidedURL
        } else {
            var navigation = NavigationRequest(url: decidedURL, method: request.method)
            metadata.apply(to: &navigation)
            let enforced: EnforcedDecision
            switch api.enforce(navigation) {
            case .success(let value): enforced = value
            case .failure(let problem): return .answer(self.problem(problem))
            }
            guard enforced.decision.verdict == .allow else { return .answer(cancelled(enforced, request: request)) }
            forwardURL = enforced.decision.url
        }
        if let hash = forwardURL.utf8.firstIndex(of: UInt8(ascii: "#")) { forwardURL = String(forwardURL[..<hash]) }
        // The scheme is http(s) from here on: forward targets were checked above, a decided
        // URL keeps its scheme, and upstream/publicOrigin are validated http(s) origins.
        if reverse, let upstream = settings.upstream {
            forwardURL = upstream + Self.pathAndQuery(of: forwardURL)
        }
        var headers = request.headers
        if reverse, let forwardedOrigin {
            headers.replaceOrAdd(name: "X-Forwarded-Proto", value: forwardedOrigin.proto)
            headers.replaceOrAdd(name: "X-Forwarded-Host", value: forwardedOrigin.host)
        }
        if !request.remoteAddress.isEmpty {
            let chain = (request.headers["X-Forwarded-For"].map { $0 + ", " } ?? "") + request.remoteAddress
            headers.replaceOrAdd(name: "X-Forwarded-For", value: chain)
        }
        return .forward(UpstreamRequest(url: forwardURL, method: request.method, headers: headers, body: request.body))
    }

    /// `/path?query` of an absolute http(s) URL serialization ("/" when it has no path).
    static func pathAndQuery(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "/" }
        let rest = url[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = String(rest[slash...])
        return tail.hasPrefix("/") ? tail : "/" + tail
    }

    /// 302 to the handler's location, else 403 with a policy page or a problem.
    private func cancelled(_ enforced: EnforcedDecision, request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if let location = enforced.decision.location {
            response = HTTPResponse(status: 302, headers: HTTPHeaders([("Location", location)]))
        } else if Self.acceptsHTML(request.headers["Accept"] ?? "") {
            response = HTTPResponse(
                status: 403, headers: .contentType("text/html; charset=utf-8"),
                body: Array(PolicyPage.html(for: enforced).utf8))
        } else {
            response = api.cancelledProblem(enforced.decision)
        }
        response.headers.add(name: "Cache-Control", value: "no-store")
        EnforcementHeaders.add(enforced.decision, id: enforced.id, includeLocation: false, to: &response.headers)
        return response
    }

    /// Whether an `Accept` value names `text/html` (any case): browsers get the policy page.
    /// Compared on the bytes in place: this runs for every cancel.
    static func acceptsHTML(_ accept: String) -> Bool {
        var accept = accept
        return accept.withUTF8 { bytes in
            guard bytes.count >= htmlMediaType.count else { return false }
            return (0...bytes.count - htmlMediaType.count).contains { start in
                htmlMediaType.indices.allSatisfy { offset in
                    let byte = bytes[start + offset]
                    return (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == htmlMediaType[offset]
                }
            }
        }
    }

    private static let htmlMediaType = Array("text/html".utf8)

    private func problem(_ problem: ProblemDetails) -> HTTPResponse {
        api.problem(problem)
    }

    private static func relay(_ outcome: UpstreamOutcome) -> HTTPResponse {
        let prefix = PolicyAPI.problemTypePrefix
        switch outcome {
        case .response(let response):
            return response
        case .failed(let reason):
            return ProblemDetails(
                kind: "bad-gateway", title: "Bad gateway", status: 502, detail: "The origin could not be reached: \(reason)."
            )
            .response(typePrefix: prefix)
        case .timedOut(let reason):
            return ProblemDetails(
                kind: "gateway-timeout", title: "Gateway timeout", status: 504,
                detail: "The origin did not answer in time: \(reason)."
            )
            .response(typePrefix: prefix)
        case .tooLarge(let limit):
            return ProblemDetails(
                kind: "bad-gateway", title: "Bad gateway", status: 502,
                detail: "The origin's response is larger than proxy.maxResponseBytes (\(limit) bytes)."
            )
            .response(typePrefix: prefix)
        }
    }
}

extension ProblemDetails {
    /// 400: an origin-form or authority-form target on the forward proxy.
    static func notAProxyRequest(reverseConfigured: Bool) -> ProblemDetails {
        ProblemDetails(
            kind: "not-a-proxy-request", title: "Bad request", status: 400,
            detail: reverseConfigured
                ? "Send an absolute http(s) URL (forward proxy) or a path (reverse proxy)."
                : "This is a forward proxy: send an absolute-form target such as GET http://host/path, "
                    + "or configure proxy.upstream and proxy.publicOrigin for reverse mode.")
    }

    /// 508: the request already passed through this proxy (it was pointed at itself).
    static let proxyLoop = ProblemDetails(
        kind: "proxy-loop", title: "Loop detected", status: 508,
        detail: "The request already carries this proxy's Via; it would loop.")
}
