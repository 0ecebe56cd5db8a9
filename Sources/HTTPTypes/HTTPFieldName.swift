/// A header field's name: spelled as it is sent, compared ignoring ASCII case wherever a field
/// is looked up (RFC 9110 §5.1), by ``ASCIICaseInsensitive`` and nothing else.
///
/// The names the daemon reads or writes are the static members below, so each is spelled once;
/// a literal (`"X-Custom"`) is a name too, for a field that is named only in one place.
/// A name is one String: looking one up costs what a String did.
public struct HTTPFieldName: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as sent.
    public let rawName: String

    /// The name spelled `rawName` (a token: RFC 9110 §5.1; a transport refuses to send another).
    @inlinable
    public init(_ rawName: String) {
        self.rawName = rawName
    }

    @inlinable
    public init(stringLiteral rawName: String) {
        self.rawName = rawName
    }

    public var description: String { rawName }

    /// Whether `name` names this field (ASCII case-insensitive).
    @inlinable
    public func matches(_ name: String) -> Bool { ASCIICaseInsensitive.equal(name, rawName) }

    /// Whether the received bytes `name` name this field (ASCII case-insensitive).
    @inlinable
    public func matches(_ name: UnsafeRawBufferPointer) -> Bool {
        var rawName = rawName
        return rawName.withUTF8 { ASCIICaseInsensitive.equal(name, UnsafeRawBufferPointer($0)) }
    }
}

extension HTTPFieldName {
    // Computed from literals: no stored global to initialise or check on every request.
    /// `Accept` (RFC 9110 §12.5.1).
    @inlinable public static var accept: HTTPFieldName { "Accept" }
    /// `Allow` (RFC 9110 §10.2.1).
    @inlinable public static var allow: HTTPFieldName { "Allow" }
    /// `Authorization` (RFC 9110 §11.6.2).
    @inlinable public static var authorization: HTTPFieldName { "Authorization" }
    /// `Cache-Control` (RFC 9111 §5.2).
    @inlinable public static var cacheControl: HTTPFieldName { "Cache-Control" }
    /// `Connection` (RFC 9110 §7.6.1).
    @inlinable public static var connection: HTTPFieldName { "Connection" }
    /// `Content-Length` (RFC 9110 §8.6).
    @inlinable public static var contentLength: HTTPFieldName { "Content-Length" }
    /// `Content-Type` (RFC 9110 §8.3).
    @inlinable public static var contentType: HTTPFieldName { "Content-Type" }
    /// `Date` (RFC 9110 §6.6.1).
    @inlinable public static var date: HTTPFieldName { "Date" }
    /// `ETag` (RFC 9110 §8.8.3).
    @inlinable public static var eTag: HTTPFieldName { "ETag" }
    /// `Host` (RFC 9110 §7.2).
    @inlinable public static var host: HTTPFieldName { "Host" }
    /// `If-None-Match` (RFC 9110 §13.1.2).
    @inlinable public static var ifNoneMatch: HTTPFieldName { "If-None-Match" }
    /// `Location` (RFC 9110 §10.2.2).
    @inlinable public static var location: HTTPFieldName { "Location" }
    /// `Retry-After` (RFC 9110 §10.2.3).
    @inlinable public static var retryAfter: HTTPFieldName { "Retry-After" }
    /// `Transfer-Encoding` (RFC 9112 §6.1).
    @inlinable public static var transferEncoding: HTTPFieldName { "Transfer-Encoding" }
    /// `Via` (RFC 9110 §7.6.3).
    @inlinable public static var via: HTTPFieldName { "Via" }
    /// `WWW-Authenticate` (RFC 9110 §11.6.1).
    @inlinable public static var wwwAuthenticate: HTTPFieldName { "WWW-Authenticate" }
    /// `Accept-Post` (RFC 5789 §3.1).
    @inlinable public static var acceptPost: HTTPFieldName { "Accept-Post" }
    /// `Idempotency-Key` (the IETF httpapi draft).
    @inlinable public static var idempotencyKey: HTTPFieldName { "Idempotency-Key" }
    /// `Content-Security-Policy` (CSP Level 3).
    @inlinable public static var contentSecurityPolicy: HTTPFieldName { "Content-Security-Policy" }
    /// `X-Content-Type-Options` (Fetch: `nosniff`).
    @inlinable public static var xContentTypeOptions: HTTPFieldName { "X-Content-Type-Options" }
    /// `X-Frame-Options` (HTML: `DENY` keeps a page out of frames).
    @inlinable public static var xFrameOptions: HTTPFieldName { "X-Frame-Options" }
    /// `Referrer-Policy` (Referrer Policy).
    @inlinable public static var referrerPolicy: HTTPFieldName { "Referrer-Policy" }
    /// `Sec-Fetch-Mode` (Fetch Metadata).
    @inlinable public static var secFetchMode: HTTPFieldName { "Sec-Fetch-Mode" }
    /// `Sec-Fetch-Dest` (Fetch Metadata).
    @inlinable public static var secFetchDest: HTTPFieldName { "Sec-Fetch-Dest" }
    /// `X-Forwarded-For` (de facto: the client address a proxy saw).
    @inlinable public static var xForwardedFor: HTTPFieldName { "X-Forwarded-For" }
    /// `X-Forwarded-Host` (de facto: the host the client asked for).
    @inlinable public static var xForwardedHost: HTTPFieldName { "X-Forwarded-Host" }
    /// `X-Forwarded-Proto` (de facto: the scheme the client used).
    @inlinable public static var xForwardedProto: HTTPFieldName { "X-Forwarded-Proto" }
}
