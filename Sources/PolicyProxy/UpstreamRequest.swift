public import HTTPTypes

/// One request to forward to an origin: the absolute URL and what the client sent.
public struct UpstreamRequest: Sendable {
    /// Absolute `http:` or `https:` URL to request (already decided on).
    public var url: String
    /// The method token as the client sent it.
    public var method: String
    /// The client's header fields; hop-by-hop fields are removed before sending.
    public var headers: HTTPHeaders
    /// The client's body (de-chunked), forwarded with its length.
    public var body: [UInt8]

    /// Creates a request from its parts.
    public init(url: String, method: String, headers: HTTPHeaders, body: [UInt8]) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// What became of a forwarded request.
public enum UpstreamOutcome: Sendable {
    /// The origin answered; hop-by-hop fields are already removed from the headers. The
    /// body is complete, or a stream when the origin was still sending.
    case response(HTTPResponse)
    /// The origin could not be reached or broke the exchange (libcurl's reason), or the
    /// proxy could not run the transfer; `kind` says which, for metrics.
    case failed(String, UpstreamFailureKind)
    /// The connect timeout passed, or the origin sent nothing for the timeout.
    case timedOut(String)
    /// The response body exceeds ``UpstreamClient/Configuration/maxResponseBytes``.
    case tooLarge(limit: Int)
    /// The ``UpstreamClient/Configuration/destinationGuard`` refused the address the name
    /// resolved to (`address`, for the log); nothing was sent.
    case destinationRefused(address: String)
}

/// Why a forward ended without a response head, in the few classes an operator alerts on.
public enum UpstreamFailureKind: String, Sendable, CaseIterable {
    /// Name resolution, the TCP connect or the TLS handshake failed.
    case connect
    /// The connection broke mid-exchange (reset, closed early, nothing sent back).
    case reset
    /// The origin's bytes are not a valid HTTP response.
    case `protocol`
    /// The proxy itself could not run the transfer (shutting down, libcurl refused a handle).
    case `internal`
    /// The client went away before the origin answered: nobody receives this outcome.
    case clientGone = "client-gone"
}
