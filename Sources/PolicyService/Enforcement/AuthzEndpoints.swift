import HTTPServer
import JSONSupport
import NavigationPolicy

/// `/v1/authz`: the nginx `auth_request` subrequest.
struct AuthzEndpoints: Sendable {
    let decisions: DecisionPoint
    let problems = ProblemRenderer()

    /// The status the handler's `response` asks for, when `auth_request` cannot carry it.
    static let statusField: HTTPFieldName = "X-Navigation-Status"

    func register(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .authz) { request throws(ServiceProblem) in
            .now(try authorize(request.http))
        }
    }

    /// 204 allows, 403 cancels; both carry the `X-Navigation-*` headers (the 403 also
    /// `X-Navigation-Location` when the handler redirects), which nginx copies with
    /// `auth_request_set`.
    ///
    /// A handler's `response` (``DenialShape``): nginx's `auth_request` passes on 401 and 403
    /// only (any other status of the subrequest is its 500), so a `response.status` of 401 is
    /// answered as is, every other one as 403 with the status in ``statusField`` for the front
    /// proxy to answer with (the shipped config does); the handler's `response.headers` are on
    /// the answer for `auth_request_set` to copy (docs/configuration.md, "Shaping a denial").
    ///
    /// Every field read here must be set by the front proxy, overwriting whatever the client
    /// sent (docs/security.md); anything missing, repeated or contradictory is a 400, which
    /// nginx turns into a refusal.
    func authorize(_ request: HTTPRequest) throws(ServiceProblem) -> HTTPResponse {
        let target = try AuthzTarget.from(request.headers)
        // The front proxy's host fields carry the port the client named (ClientAuthority).
        var navigation = try ClientAuthority.navigation(url: target.url, method: target.method, field: target.hostField)
        FetchMetadata(request.headers).apply(to: &navigation)
        // The peer is the nginx in front: the client's own address is nginx's to log.
        let enforced = try decisions.enforce(navigation, clientAddress: request.remoteAddress)
        var response: HTTPResponse
        if enforced.decision.verdict == .allow {
            response = .empty(status: 204)
        } else {
            response = problems.cancelled(enforced.decision)
            if let status = enforced.decision.response?.status {
                response.status = status == 401 ? 401 : 403
                response.headers.add(name: Self.statusField, value: String(status))
            }
            DenialShape.forEachField(of: enforced.decision) { response.headers.add(name: HTTPFieldName($0), value: $1) }
        }
        EnforcementHeaders.add(enforced.decision, id: enforced.id, includeLocation: true, to: &response.headers)
        return response
    }
}

/// The original request of an nginx `auth_request` subrequest, rebuilt from the fields the
/// front proxy sets.
///
/// The subrequest's own `Host` is never used: it names navpolicyd's upstream, not the site
/// the client asked for, so a client that sends no host of its own (HTTP/1.0) would
/// otherwise be decided as `http://navpolicyd/…` and allowed.
struct AuthzTarget: Equatable {
    /// The URL to decide.
    var url: String
    /// The original method (`X-Original-Method`, default GET).
    var method: String
    /// The field the host came from, named by a refusal.
    var hostField: String

    /// The fields of the origin-form spelling; all three are required together.
    static let originFormFields: [HTTPFieldName] = [.xOriginalURI, .xForwardedHost, .xForwardedProto]
    /// Every field the endpoint trusts: each may appear at most once.
    static let trustedFields = originFormFields + [.xOriginalURL, .xOriginalMethod]

    /// `X-Original-URL` alone, or `X-Forwarded-Proto` + `X-Forwarded-Host` + `X-Original-URI`.
    static func from(_ headers: HTTPHeaders) throws(ServiceProblem) -> AuthzTarget {
        for name in trustedFields where headers.count(of: name) > 1 {
            throw ServiceProblem(
                .invalidRequest(
                    "\(name) is sent more than once; the front proxy must set it exactly once (proxy_set_header)",
                    field: name.rawName))
        }
        // Not a token → the decision itself refuses it (400), as for /v1/decide.
        let method = headers[.xOriginalMethod] ?? "GET"
        if let url = headers[.xOriginalURL] {
            // Two spellings of the target could disagree; which one a proxy overwrote is unknown.
            if let other = originFormFields.first(where: { headers[$0] != nil }) {
                throw ServiceProblem(
                    .invalidRequest(
                        "send either X-Original-URL or X-Forwarded-Proto + X-Forwarded-Host + X-Original-URI, "
                            + "not both (\(other) is present too)", field: "X-Original-URL"))
            }
            guard !ForwardedTargetSyntax.isReinterpreted(url) else {
                throw ServiceProblem(
                    .invalidRequest("X-Original-URL \(ForwardedTargetSyntax.refusal)", field: "X-Original-URL"))
            }
            return AuthzTarget(url: url, method: method, hostField: "X-Original-URL")
        }
        guard let uri = headers[.xOriginalURI] else {
            throw ServiceProblem(
                .invalidRequest(
                    "send X-Original-URI, X-Forwarded-Host and X-Forwarded-Proto (nginx: proxy_set_header "
                        + "X-Original-URI $request_uri; X-Forwarded-Host $host; X-Forwarded-Proto $scheme), "
                        + "or X-Original-URL", field: "X-Original-URI"))
        }
        guard uri.hasPrefix("/") else {
            throw ServiceProblem(.invalidRequest("X-Original-URI must start with \"/\"", field: "X-Original-URI"))
        }
        guard !ForwardedTargetSyntax.isReinterpreted(uri) else {
            throw ServiceProblem(
                .invalidRequest("X-Original-URI \(ForwardedTargetSyntax.refusal)", field: "X-Original-URI"))
        }
        guard let host = headers[.xForwardedHost], !host.isEmpty else {
            throw ServiceProblem(
                .invalidRequest(
                    "X-Forwarded-Host is required and must not be empty: the decision is taken on the host the "
                        + "client asked for, never on this endpoint's own Host (nginx: proxy_set_header "
                        + "X-Forwarded-Host $host, and refuse requests without a host)", field: "X-Forwarded-Host"))
        }
        guard ClientAuthority.isHostField(host) else {
            throw ServiceProblem(.invalidRequest("X-Forwarded-Host must be a host[:port]", field: "X-Forwarded-Host"))
        }
        guard let proto = headers[.xForwardedProto] else {
            throw ServiceProblem(
                .invalidRequest(
                    "X-Forwarded-Proto is required (nginx: proxy_set_header X-Forwarded-Proto $scheme)",
                    field: "X-Forwarded-Proto"))
        }
        let scheme = proto.lowercased()
        // By bytes: `==` normalizes a value of combining marks first (outside attack 15, F6).
        guard scheme.hasSameUTF8(as: "http") || scheme.hasSameUTF8(as: "https") else {
            throw ServiceProblem(.invalidRequest("X-Forwarded-Proto must be http or https", field: "X-Forwarded-Proto"))
        }
        return AuthzTarget(url: scheme + "://" + host + uri, method: method, hostField: "X-Forwarded-Host")
    }
}

extension HTTPFieldName {
    /// nginx `auth_request`: the original request's target (`proxy_set_header X-Original-URI $request_uri`).
    static var xOriginalURI: HTTPFieldName { "X-Original-URI" }
    /// The original request's whole URL, for front ends that send it in one field.
    static var xOriginalURL: HTTPFieldName { "X-Original-URL" }
    /// The original request's method (GET when absent).
    static var xOriginalMethod: HTTPFieldName { "X-Original-Method" }
}
