public import JSONSupport

/// A complete response: status, header fields and body bytes.
///
/// `Content-Length` and `Date` are written by libmicrohttpd; do not set them.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code (100–599).
    public var status: Int
    /// Header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body bytes (not sent for HEAD requests).
    public var body: [UInt8]

    /// Creates a response from its parts.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already serialized bytes.
    public static func json(status: Int = 200, body: [UInt8], contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: body)
    }

    /// A JSON response serialized from a value.
    public static func json(status: Int = 200, _ value: JSONValue) -> HTTPResponse {
        json(status: status, body: value.serializedBytes)
    }

    /// A UTF-8 plain-text response.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]), body: Array(text.utf8))
    }

    /// A response without a body (204 by default).
    public static func empty(status: Int = 204) -> HTTPResponse {
        HTTPResponse(status: status)
    }
}
