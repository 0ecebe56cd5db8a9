public import JSONSupport

/// A response: status, header fields and a body, either complete bytes or a stream.
///
/// `Content-Length` and `Date` are written by libmicrohttpd; do not set them.
public struct HTTPResponse: Sendable, Equatable {
    // Every change to the parts unlinks ``prepared`` (the server would otherwise send the
    // prebuilt bytes, not the changed ones). `didSet` without `oldValue` still mutates in place.

    /// The status code (100–599).
    public var status: Int { didSet { prepared = nil } }
    /// Header fields to send, in order.
    public var headers: HTTPHeaders { didSet { prepared = nil } }
    /// The body bytes (not sent for HEAD requests); ignored when ``bodyStream`` is set.
    public var body: [UInt8] { didSet { prepared = nil } }
    /// A body produced while it is sent, instead of ``body``.
    public var bodyStream: (any HTTPBodyStream)? { didSet { prepared = nil } }
    /// The prepared response this value came from, unchanged; nil for any other response.
    public internal(set) var prepared: PreparedResponse?

    /// Creates a response from its parts.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response whose body is pulled from `bodyStream` as the client reads it.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), bodyStream: any HTTPBodyStream) {
        self.init(status: status, headers: headers)
        self.bodyStream = bodyStream
    }

    /// Equal parts; streams are equal only when they are the same object.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.bodyStream.map(ObjectIdentifier.init) == rhs.bodyStream.map(ObjectIdentifier.init)
    }

    /// A JSON response from already serialized bytes.
    public static func json(status: Int = 200, body: [UInt8], contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: .contentType(contentType), body: body)
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
