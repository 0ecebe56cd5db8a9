#if canImport(Glibc)
    import Glibc
#endif

/// The request-line tokens almost every request uses, as shared constants: a request with
/// a known method or version gets the literal instead of a String built from MHD's bytes.
enum InternedTokens {
    /// The registered methods a policy daemon sees; anything else is copied as sent.
    private static let methods = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"]
    private static let versions = ["HTTP/1.1", "HTTP/1.0"]

    /// The method MHD parsed (NUL-terminated in its read buffer), interned when known.
    static func method(_ text: UnsafePointer<CChar>) -> String { interned(text, among: methods) }

    /// The protocol version MHD parsed, interned when known.
    static func version(_ text: UnsafePointer<CChar>) -> String { interned(text, among: versions) }

    /// Compared byte for byte (methods are case-sensitive, RFC 9110 §9.1); an unknown token,
    /// even invalid UTF-8, is decoded as before so that validation sees exactly what was sent.
    private static func interned(_ text: UnsafePointer<CChar>, among known: [String]) -> String {
        let bytes = UnsafeRawBufferPointer(start: text, count: strlen(text))
        for candidate in known where candidate.utf8.elementsEqual(bytes) { return candidate }
        return String(decoding: bytes, as: UTF8.self)
    }
}
