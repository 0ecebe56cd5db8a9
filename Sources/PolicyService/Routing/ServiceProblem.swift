import HTTPServer
import JSONSupport
import NavigationPolicy

/// What an endpoint throws instead of answering: an RFC 9457 problem and the header fields
/// its status calls for (`Allow`, `WWW-Authenticate`, `Retry-After`, `Accept-Post`).
///
/// Thrown by handlers and route checks, rendered once by ``ProblemRenderer``: no endpoint
/// builds a problem response or knows the type prefix.
struct ServiceProblem: Error, Sendable {
    /// The problem body.
    var details: ProblemDetails
    /// Header fields sent with it, after `Content-Type`.
    var headers: HTTPHeaders

    init(_ details: ProblemDetails, headers: HTTPHeaders = HTTPHeaders()) {
        self.details = details
        self.headers = headers
    }
}

/// Turns problems into `application/problem+json` responses: the one place that knows the
/// type prefix.
struct ProblemRenderer: Sendable {
    /// Prefix of every problem `type` this daemon answers with.
    static let typePrefix = "urn:navpolicyd:problem:"

    /// The problem's response, with its header fields.
    func response(_ problem: ServiceProblem) -> HTTPResponse {
        var response = problem.details.response(typePrefix: Self.typePrefix)
        for field in problem.headers { response.headers.add(name: HTTPFieldName(field.name), value: field.value) }
        return response
    }

    /// The response of a problem that needs no header fields.
    func response(_ details: ProblemDetails) -> HTTPResponse {
        details.response(typePrefix: Self.typePrefix)
    }

    /// 403 (or the handler's `response.status`) `navigation-cancelled`: the problem with the
    /// decision object as its `decision` member, written straight into the body (every cancel
    /// of `/v1/authz` and the proxy answers this).
    func cancelled(_ decision: Decision) -> HTTPResponse {
        let by = decision.handler.map { "the \"\($0)\" handler" } ?? "the default decision"
        let problem = ProblemDetails(
            kind: "navigation-cancelled", title: "Navigation cancelled",
            status: HTTPStatus(code: decision.response?.status ?? 403),
            detail: "The navigation policy cancelled this navigation (\(by)).")
        return problem.response(typePrefix: Self.typePrefix) { writer in
            writer.writeRaw(#","decision":{"#)
            decision.writeMembers(to: &writer)
            writer.writeRaw("}")
        }
    }
}
