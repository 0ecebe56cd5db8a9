/// One complete HTTP request as received, handed to an ``HTTPResponder``.
///
/// Everything is copied out of libmicrohttpd's buffers, so a request may outlive its
/// connection (for example in an asynchronous responder).
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent ("GET", "POST", …).
    public var method: String
    /// The request target exactly as on the request line, still percent-encoded, query included.
    public var rawTarget: String
    /// The target without its query, still percent-encoded (`%2F` stays distinguishable from `/`).
    public var path: String
    /// The raw query after the first "?", without the "?"; nil when the target has none.
    public var query: String?
    /// Header fields in the order received.
    public var headers: HTTPHeaders
    /// The request body (already de-chunked).
    public var body: [UInt8]
    /// The peer's IP address as text ("127.0.0.1", "::1"); empty when unknown.
    public var remoteAddress: String
    /// The protocol version from the request line ("HTTP/1.1").
    public var httpVersion: String

    /// Creates a request; `path` and `query` are derived from `rawTarget`.
    public init(
        method: String,
        rawTarget: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "",
        httpVersion: String = "HTTP/1.1"
    ) {
        self.method = method
        self.rawTarget = rawTarget
        // Searched as bytes: a Character search walks grapheme clusters, on every request.
        if let questionMark = rawTarget.utf8.firstIndex(of: UInt8(ascii: "?")) {
            self.path = String(rawTarget[..<questionMark])
            self.query = String(rawTarget[rawTarget.index(after: questionMark)...])
        } else {
            self.path = rawTarget
            self.query = nil
        }
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.httpVersion = httpVersion
    }

    /// The query decoded as `application/x-www-form-urlencoded` pairs ('+' is a space), in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return FormURLDecoding.pairs(query)
    }

    /// The decoded value of the first query item named `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
