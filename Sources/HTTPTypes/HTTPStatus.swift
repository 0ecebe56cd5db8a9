/// A response's status code (RFC 9110 §15): a three-digit number, written as a literal
/// (`200`, `404`) or as one of the named codes below.
///
/// A transport refuses to send a code outside 100–599 (it answers 500 instead); the type
/// does not trap on one, since a code can come from outside (a proxied origin, a stored
/// intake answer).
public struct HTTPStatus: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number on the status line.
    public let code: Int

    /// The status with this number.
    @inlinable
    public init(code: Int) {
        self.code = code
    }

    @inlinable
    public init(integerLiteral code: Int) {
        self.code = code
    }

    /// The number, as on the status line and in metrics labels.
    public var description: String { String(code) }

    /// Whether a transport can send it: a three-digit code from 100 to 599.
    @inlinable
    public var isValid: Bool { code >= 100 && code <= 599 }

    public static func < (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code < rhs.code }

    // Computed from literals: no stored global to initialise or check on every response.

    /// 200 OK.
    @inlinable public static var ok: HTTPStatus { 200 }
    /// 204 No Content.
    @inlinable public static var noContent: HTTPStatus { 204 }
    /// 304 Not Modified.
    @inlinable public static var notModified: HTTPStatus { 304 }
    /// 500 Internal Server Error.
    @inlinable public static var internalServerError: HTTPStatus { 500 }
    /// 503 Service Unavailable.
    @inlinable public static var serviceUnavailable: HTTPStatus { 503 }
}
