import ExtAuthzProtocol
import GRPCServer

/// The ext_authz gRPC front end: `envoy.service.auth.v3.Authorization/Check` translates a
/// `CheckRequest` into an ``ExtAuthzRequest``, lets ``ExtAuthzCheck`` (the mapping the HTTP
/// service shares) decide, and translates its ``ExtAuthzAnswer`` into a `CheckResponse`;
/// `grpc.health.v1.Health/Check` reports what `/readyz` reports.
struct ExtAuthzGRPCResponder: Sendable {
    /// The decision mapping shared with the HTTP ext_authz service.
    let check: ExtAuthzCheck
    /// Whether a policy is active (health is `NOT_SERVING` without one).
    let hasPolicy: @Sendable () -> Bool
    /// The daemon's drain flag (health is `NOT_SERVING` while draining).
    let draining: DrainingFlag

    /// The gRPC service names health checks may ask about ("" = the server as a whole).
    static let authorizationService = "envoy.service.auth.v3.Authorization"

    /// The `:path` of `Authorization/Check`.
    static let checkPath = "/\(authorizationService)/Check"
    /// The `:path` of the gRPC health protocol's `Check`.
    static let healthPath = "/grpc.health.v1.Health/Check"

    /// The methods, keyed by their HTTP/2 `:path`.
    var methods: [String: GRPCMethod] {
        [
            Self.checkPath: { [self] message in authorize(message) },
            Self.healthPath: { [self] message in health(message) },
        ]
    }

    /// The statuses (as the server's observer reports them) of the answers ``authorize(_:)``
    /// gives, each counted in `navpolicyd_ext_authz_checks_total` by the check itself: `0` with
    /// the decision, `INVALID_ARGUMENT` for a `CheckRequest` that is not protobuf. Any other
    /// answer to a Check call was the transport's, and the listener counts it.
    static let countedStatuses: Set<String> = ["\(GRPCStatusCode.ok.rawValue)", "\(GRPCStatusCode.invalidArgument.rawValue)"]

    /// `Authorization/Check`: a `CheckRequest` that is not valid protobuf is `INVALID_ARGUMENT`
    /// (no decision was made, so nothing is logged as one); every decodable one is decided,
    /// and a request the policy cannot decide (no host, a bad URL) gets the mapping's denial.
    func authorize(_ message: ArraySlice<UInt8>) -> GRPCOutcome {
        let request: CheckRequestMessage
        do {
            request = try CheckRequestMessage(serialized: message)
        } catch {
            check.count(.invalid)
            return .status(.invalidArgument, "CheckRequest: \(error.description)")
        }
        // Envoy sends names lowercase (HTTP/2 requires it); another client's are lowered here.
        let lowercase = request.headers.allSatisfy { !$0.name.utf8.contains { $0 >= 0x41 && $0 <= 0x5A } }
        let answer = check.check(
            ExtAuthzRequest(
                method: request.method, scheme: request.scheme, host: request.host, path: request.path,
                headers: lowercase ? request.headers : request.headers.map { (name: $0.name.lowercased(), value: $0.value) },
                clientAddress: DecisionOrigin.address(request.sourceAddress[...]),
                requestID: DecisionOrigin.requestID(request.id)))
        return .message(Self.serialized(answer))
    }

    /// The `dynamic_metadata` key of the decision id (namespace `envoy.filters.http.ext_authz`
    /// in Envoy: `%DYNAMIC_METADATA(envoy.filters.http.ext_authz:decisionId)%` in an access log).
    static let decisionIDMetadataKey = "decisionId"

    /// The answer's `CheckResponse`, with the decision id as `dynamic_metadata` when one was taken.
    static func serialized(_ answer: ExtAuthzAnswer) -> [UInt8] {
        let message = Self.response(for: answer)
        guard let id = answer.decisionID else { return message.serialized }
        return message.serialized(dynamicMetadata: [(key: decisionIDMetadataKey, value: id)])
    }

    /// The `CheckResponse` for an answer: allow → `OK` with the upstream headers in
    /// `ok_response`; anything else → `PERMISSION_DENIED` with the HTTP status, client headers
    /// and body in `denied_response` (Envoy answers the client with exactly that).
    static func response(for answer: ExtAuthzAnswer) -> CheckResponseMessage {
        if answer.allowed {
            return .ok(
                headers: answer.upstreamHeaders.map { .init(name: $0.name, value: $0.value) },
                headersToRemove: answer.removeUpstreamHeaders)
        }
        return .denied(
            grpcCode: CheckResponseMessage.permissionDenied, httpStatus: answer.status,
            headers: answer.clientHeaders.map { .init(name: $0.name, value: $0.value) },
            body: String(decoding: answer.body, as: UTF8.self))
    }

    /// `Health/Check`: `SERVING` while a policy is active and the daemon is not draining, as
    /// `/readyz`; an unknown service name is `NOT_FOUND`, as the health protocol says.
    func health(_ message: ArraySlice<UInt8>) -> GRPCOutcome {
        let service: String
        do {
            service = try HealthCheckMessages.service(serialized: message)
        } catch {
            return .status(.invalidArgument, "HealthCheckRequest: \(error.description)")
        }
        guard service.isEmpty || service == Self.authorizationService else {
            return .status(.notFound, "unknown service \(service)")
        }
        let serving = hasPolicy() && !draining.isDraining
        return .message(HealthCheckMessages.response(serving ? .serving : .notServing))
    }
}
