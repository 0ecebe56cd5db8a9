import HTTPServer
import JSONSupport
import NavigationPolicy

/// A decision taken for an enforcement point, with the identifier it was logged under.
struct EnforcedDecision: Sendable {
    /// The policy's answer.
    var decision: Decision
    /// The `decisionId` written to the decision log and sent as `X-Navigation-Decision-Id`.
    var id: String
}

extension PolicyAPI {
    /// Decides a navigation on the current snapshot and records it exactly like `/v1/decide`
    /// (metrics, decision log, identifier), so every mode reports into one place.
    /// - Returns: the decision, or the problem to answer with (invalid request, no policy).
    func enforce(_ navigation: NavigationRequest) -> Result<EnforcedDecision, ProblemDetails> {
        guard let snapshot = store.snapshot else { return .failure(.noPolicy) }
        let decision: Decision
        do {
            decision = try snapshot.policy.decide(navigation, explain: false)
        } catch {
            return .failure(.invalidRequest(error.description, field: error.field))
        }
        let id = record(decision, for: navigation, snapshot: snapshot)
        return .success(EnforcedDecision(decision: decision, id: id))
    }

    /// `GET /v1/authz`: the nginx `auth_request` subrequest. 204 allows, 403 cancels; both
    /// carry the `X-Navigation-*` headers (the 403 also `X-Navigation-Location` when the
    /// handler redirects), which nginx copies with `auth_request_set`.
    func authorize(_ request: HTTPRequest) -> HTTPResponse {
        let url: String
        switch AuthzTarget.url(from: request.headers) {
        case .success(let rebuilt): url = rebuilt
        case .failure(let problem): return self.problem(problem)
        }
        var navigation = NavigationRequest(url: url, method: request.headers["X-Original-Method"] ?? "GET")
        FetchMetadata(request.headers).apply(to: &navigation)
        let enforced: EnforcedDecision
        switch enforce(navigation) {
        case .success(let value): enforced = value
        case .failure(let problem): return self.problem(problem)
        }
        var response: HTTPResponse
        if enforced.decision.verdict == .allow {
            response = .empty(status: 204)
        } else {
            response = cancelledProblem(enforced.decision)
        }
        EnforcementHeaders.add(enforced.decision, id: enforced.id, includeLocation: true, to: &response.headers)
        return response
    }
}

/// Rebuilds the original URL of an nginx `auth_request` subrequest from its headers.
enum AuthzTarget {
    /// `X-Original-URL` when present; otherwise `X-Forwarded-Proto` (default `http`) +
    /// `X-Forwarded-Host` (or `Host`) + `X-Original-URI`.
    static func url(from headers: HTTPHeaders) -> Result<String, ProblemDetails> {
        if let url = headers["X-Original-URL"] { return .success(url) }
        guard let uri = headers["X-Original-URI"] else {
            return .failure(
                .invalidRequest(
                    "send X-Original-URL, or X-Original-URI with X-Forwarded-Host or Host "
                        + "(nginx: proxy_set_header X-Original-URI $request_uri)", field: "X-Original-URI"))
        }
        guard uri.hasPrefix("/") else {
            return .failure(.invalidRequest("X-Original-URI must start with \"/\"", field: "X-Original-URI"))
        }
        let scheme = (headers["X-Forwarded-Proto"] ?? "http").lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .failure(.invalidRequest("X-Forwarded-Proto must be http or https", field: "X-Forwarded-Proto"))
        }
        guard let host = headers["X-Forwarded-Host"] ?? headers["Host"], !host.isEmpty,
            !host.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" || $0 == "\\" })
        else {
            return .failure(.invalidRequest("X-Forwarded-Host (or Host) must be a host[:port]", field: "X-Forwarded-Host"))
        }
        return .success(scheme + "://" + host + uri)
    }
}

extension PolicyAPI {
    /// 403 `navigation-cancelled`: the problem with the decision object as its `decision`
    /// member, written straight into the body (every cancel of the proxy answers this).
    func cancelledProblem(_ decision: Decision) -> HTTPResponse {
        let by = decision.handler.map { "the \"\($0)\" handler" } ?? "the default decision"
        let problem = ProblemDetails(
            kind: "navigation-cancelled", title: "Navigation cancelled", status: 403,
            detail: "The navigation policy cancelled this navigation (\(by)).")
        return problem.response(typePrefix: Self.problemTypePrefix) { writer in
            writer.writeRaw(#","decision":{"#)
            decision.writeMembers(to: &writer)
            writer.writeRaw("}")
        }
    }
}
