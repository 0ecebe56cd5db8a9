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
    /// The origin could not be reached or broke the exchange (libcurl's reason).
    case failed(String)
    /// The connect timeout passed, or the origin sent nothing for the timeout.
    case timedOut(String)
    /// The response body exceeds ``UpstreamClient/Configuration/maxResponseBytes``.
    case tooLarge(limit: Int)
}
