/// The original request Envoy asks about, as both ext_authz transports carry it.
struct ExtAuthzRequest: Sendable {
    /// The original method (`GET`, `POST`, …).
    var method: String
    /// `http` or `https`. HTTP service: `X-Forwarded-Proto`; gRPC: `attributes.request.http.scheme`.
    var scheme: String
    /// The original `:authority` / `Host`, `host[:port]`.
    var host: String
    /// The origin-form path with its query (HTTP service: after `extAuthz.pathPrefix` is removed).
    var path: String
    /// The headers Envoy forwards, names in lower case (`allowed_headers`).
    var headers: [(name: String, value: String)]
    /// The client's address as Envoy reports it, for the decision log (never decided on):
    /// gRPC `attributes.source.address`; HTTP service: the last `X-Forwarded-For` entry, the
    /// one the edge Envoy appends. Empty when unknown; never the TCP peer, which is Envoy.
    var clientAddress = ""
    /// Envoy's `x-request-id` (gRPC: `attributes.request.http.id`), checked by
    /// ``DecisionOrigin/requestID(_:)``, for the decision log; nil when absent or refused.
    var requestID: String?
}

/// What to tell Envoy: allow (with headers for the upstream) or deny (status, headers and body
/// for the client).
struct ExtAuthzAnswer: Sendable {
    /// Whether the request may go on to the upstream.
    var allowed: Bool
    /// 200 allow (a cancel in dry run too); 403 cancel, or the handler's `response.status`;
    /// 302 cancel with a location; 400 a request that cannot be decided; 503 no policy loaded yet.
    var status: Int
    /// Allow: the `x-navigation-*` fields for the upstream (`allowed_upstream_headers`).
    var upstreamHeaders: [(name: String, value: String)]
    /// Deny: `x-navigation-*`, `location` (302) and `content-type` for the client
    /// (`allowed_client_headers`).
    var clientHeaders: [(name: String, value: String)]
    /// Deny: the `application/problem+json` body (empty for a 302).
    var body: [UInt8]
    /// The `decisionId` the decision was logged under; nil when none was taken (a request
    /// that could not be decided, no policy). gRPC sends it as `dynamic_metadata`. No
    /// default: every answer says it, so a decided one cannot leave it out (round 8 found the
    /// dry-run allow without it, the lines a rollout most needs to join).
    var decisionID: String?
    /// Allow in dry run: request fields Envoy removes before forwarding (the would-be cancel's
    /// `response.removeRequestHeaders`).
    var removeUpstreamHeaders: [String] = []
}
