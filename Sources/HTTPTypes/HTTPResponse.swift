public import JSONSupport

/// A response: status, header fields, a body (complete bytes or a stream) and trailer fields.
///
/// `Content-Length` and `Date` are written by the transport; do not set them.
///
/// Trailers are fields sent after the body (an HTTP/2 HEADERS frame ending the stream; gRPC
/// carries its `grpc-status` there). A transport that cannot send them refuses the whole
/// response rather than drop them: the HTTP/1.1 ``HTTPServer`` answers 500 and logs
/// `http.invalid_response`, as for a status outside 100–599, since a response whose meaning is
/// in its trailers must never arrive without them.
public struct HTTPResponse: Sendable, Equatable {
    /// What follows the head: the whole body, or a stream the transport pulls while it sends.
    public enum Body: Sendable, Equatable {
        /// The complete body (not sent for HEAD requests).
        case bytes([UInt8])
        /// A body produced while it is sent (a proxied download).
        case stream(any HTTPBodyStream)

        /// Equal bytes; streams are equal only when they are the same object.
        public static func == (lhs: Body, rhs: Body) -> Bool {
            switch (lhs, rhs) {
            case (.bytes(let left), .bytes(let right)): left == right
            case (.stream(let left), .stream(let right)): left === right
            case (.bytes, .stream), (.stream, .bytes): false
            }
        }
    }

    // Every change to the parts unlinks ``prepared`` (the server would otherwise send the
    // prebuilt bytes, not the changed ones). `didSet` without `oldValue` still mutates in place.

    /// The status code.
    public var status: HTTPStatus { didSet { prepared = nil } }
    /// Header fields to send, in order.
    public var headers: HTTPHeaders { didSet { prepared = nil } }
    /// The body: bytes or a stream.
    public var body: Body { didSet { prepared = nil } }
    /// Fields sent after the body; empty for nearly every response (see the type's note on
    /// the transports that cannot send them).
    public var trailers = HTTPHeaders() { didSet { prepared = nil } }
    /// The prepared response this value came from, unchanged; nil for any other response.
    public internal(set) var prepared: PreparedResponse?

    /// Creates a response from its parts.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    /// Creates a response whose body is pulled from `bodyStream` as the client reads it.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), bodyStream: any HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = .stream(bodyStream)
    }

    /// The bytes of a ``Body/bytes(_:)`` body; empty for a stream (whose bytes only the
    /// transport reads, as it sends them).
    public var bodyBytes: [UInt8] {
        guard case .bytes(let bytes) = body else { return [] }
        return bytes
    }

    /// Equal parts; streams are equal only when they are the same object.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.trailers == rhs.trailers
    }

    /// A JSON response from already serialized bytes.
    public static func json(status: HTTPStatus = .ok, body: [UInt8], contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: .contentType(contentType), body: body)
    }

    /// A JSON response serialized from a value.
    public static func json(status: HTTPStatus = .ok, _ value: JSONValue) -> HTTPResponse {
        json(status: status, body: value.serializedBytes)
    }

    /// A UTF-8 plain-text response.
    public static func text(status: HTTPStatus = .ok, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([(.contentType, "text/plain; charset=utf-8")]), body: Array(text.utf8))
    }

    /// A response without a body (204 by default).
    public static func empty(status: HTTPStatus = .noContent) -> HTTPResponse {
        HTTPResponse(status: status)
    }
}
