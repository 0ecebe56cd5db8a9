import HTTPServer
import NavigationPolicy

/// Envoy's ext_authz HTTP service: every request on this listener is the original request
/// Envoy asks about, whatever its method and path, so there are no routes.
///
/// Envoy's HTTP authorization client sends the original method, `extAuthz.pathPrefix` +
/// the original path and query, the original `Host`, and the headers `allowed_headers`
/// admits. The scheme is `X-Forwarded-Proto`, which the edge Envoy sets from the downstream
/// connection. `Host` and `X-Forwarded-Proto` must each arrive exactly once: two spellings
/// of one field leave unknown which one Envoy wrote, so such a request is refused (400).
struct ExtAuthzHTTPResponder: HTTPResponder {
    let check: ExtAuthzCheck
    let settings: ExtAuthzSettings
    private let metrics: Metrics
    private let problems = ProblemRenderer()

    /// The fields that place the request: each must be sent exactly once.
    static let placingFields: [HTTPFieldName] = [.host, .xForwardedProto]

    init(check: ExtAuthzCheck) {
        self.check = check
        self.settings = check.settings
        metrics = check.decisions.recorder.metrics
    }

    func respond(to request: HTTPRequest) -> HTTPResponderResult {
        let start = MonotonicTime.nanoseconds()
        var response: HTTPResponse
        do throws(ServiceProblem) {
            response = Self.response(for: check.check(try originalRequest(request)))
        } catch {
            check.count(.invalid)
            response = problems.response(error)
            response.headers.add(name: .cacheControl, value: "no-store")
        }
        // Every answer, refusals included, so malformed checks show in /metrics as 4xx.
        let seconds = Double(MonotonicTime.nanoseconds() &- start) / 1e9
        metrics.recordRequest(
            endpoint: Self.endpointLabel, index: Self.endpointIndex, status: response.status.code, seconds: seconds)
        return .now(response)
    }

    /// The `endpoint` label of this listener's answers in `navpolicyd_http_requests_total`.
    static let endpointLabel = "ext_authz"
    /// Its slot among the atomically counted labels, found once.
    private static let endpointIndex = Metrics.endpointIndex(endpointLabel)

    /// The request Envoy asks about; 400 when a placing field is missing or repeated, or the
    /// path is not under the prefix (the check refuses what else cannot be decided).
    func originalRequest(_ request: HTTPRequest) throws(ServiceProblem) -> ExtAuthzRequest {
        let headers = request.headers
        for name in Self.placingFields where headers.count(of: name) != 1 {
            throw ServiceProblem(
                .invalidRequest(
                    "\(name) must be sent exactly once, not \(headers.count(of: name)) times: Envoy sets it "
                        + "(docs/envoy.md, \"Trusted fields\")", field: name.rawName))
        }
        guard let path = settings.originalTarget(request.rawTarget) else {
            throw ServiceProblem(
                .invalidRequest(
                    "the path must be the configured prefix \"\(settings.pathPrefix)\" (--ext-authz-path-prefix, "
                        + "extAuthz.pathPrefix) followed by the original path: Envoy's http_service.path_prefix must be "
                        + "the same, and nothing else is decided", field: "path"))
        }
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(headers.count)
        // Envoy sends lower-case names already: only another spelling costs a copy.
        for field in headers {
            let lower = field.name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            fields.append((name: lower ? field.name.lowercased() : field.name, value: field.value))
        }
        // For the decision log only. A repeated `x-request-id` leaves unknown which one Envoy
        // set: none is logged.
        let requestIDs = headers.values(for: Self.requestIDField)
        return ExtAuthzRequest(
            method: request.method, scheme: headers[.xForwardedProto] ?? "", host: headers[.host] ?? "", path: path,
            headers: fields, clientAddress: DecisionOrigin.lastForwardedFor(headers.values(for: .xForwardedFor)),
            requestID: requestIDs.count == 1 ? DecisionOrigin.requestID(requestIDs[0]) : nil)
    }

    /// Envoy's request id, which it sends when `allowed_headers` lists it (the shipped bootstrap does).
    static let requestIDField: HTTPFieldName = "X-Request-Id"

    /// Allow → 200 and the upstream fields; deny → its status, client fields and body.
    static func response(for answer: ExtAuthzAnswer) -> HTTPResponse {
        var fields = answer.allowed ? answer.upstreamHeaders : answer.clientHeaders
        if answer.allowed, !answer.removeUpstreamHeaders.isEmpty {
            // Envoy's HTTP authorization client reads this one field of an OK answer as the
            // request fields to remove before forwarding (the gRPC answer's headers_to_remove).
            fields.append(
                (name: headersToRemoveField, value: answer.removeUpstreamHeaders.joined(separator: ",")))
        }
        return HTTPResponse(
            status: HTTPStatus(code: answer.status), headers: HTTPHeaders(fields.map { ($0.name, $0.value) }), body: answer.body)
    }

    /// The field of an OK answer Envoy's HTTP service removes request fields by.
    static let headersToRemoveField = "x-envoy-auth-headers-to-remove"
}
