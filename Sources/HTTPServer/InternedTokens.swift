#if canImport(Glibc)
    import Glibc
#endif

/// The request-line tokens almost every request uses, as shared constants: a request with
/// a known method or version gets the literal instead of a String built from MHD's bytes.
enum InternedTokens {
    /// The registered methods a policy daemon sees; anything else is copied as sent.
    private static let methods = Token.table(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"])
    private static let versions = Token.table(["HTTP/1.1", "HTTP/1.0"])

    /// A known token: its bytes (for the comparison) next to the literal handed out.
    private struct Token {
        let bytes: [UInt8]
        let text: String

        static func table(_ texts: [String]) -> [Token] { texts.map { Token(bytes: Array($0.utf8), text: $0) } }
    }

    /// The method MHD parsed (NUL-terminated in its read buffer), interned when known.
    static func method(_ text: UnsafePointer<CChar>) -> String { interned(text, among: methods) }

    /// The protocol version MHD parsed, interned when known.
    static func version(_ text: UnsafePointer<CChar>) -> String { interned(text, among: versions) }

    /// Compared byte for byte (methods are case-sensitive, RFC 9110 §9.1); an unknown token,
    /// even invalid UTF-8, is decoded as before so that validation sees exactly what was sent.
    /// The length first, then `memcmp` on the stored bytes: `elementsEqual` between the
    /// literal's `UTF8View` and the C bytes cost ≈ 300 instructions per token, twice a request.
    private static func interned(_ text: UnsafePointer<CChar>, among known: [Token]) -> String {
        let length = strlen(text)
        for candidate in known where candidate.bytes.count == length {
            let equal = candidate.bytes.withUnsafeBufferPointer { stored in
                // Both hold `length` bytes: the stored ones by the check above, MHD's by strlen.
                stored.baseAddress.map { memcmp($0, text, length) == 0 } ?? (length == 0)
            }
            if equal { return candidate.text }
        }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }
}
