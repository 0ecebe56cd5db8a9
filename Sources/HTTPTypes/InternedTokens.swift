#if canImport(Glibc)
    import Glibc
#endif

/// The request-line tokens almost every request uses, as shared constants: a request with
/// a known method or version gets the literal instead of a String built from MHD's bytes.
package enum InternedTokens {
    /// The registered methods a policy daemon sees; anything else is copied as sent.
    private static let methods = Token.table(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"])
    private static let versions = Token.table(["HTTP/1.1", "HTTP/1.0"])
    /// Field names as clients usually spell them, the most frequent first (curl sends the
    /// first three, wrk the first). Only this exact spelling is interned: a name sent in
    /// another case is copied as sent, since ``HTTPHeaders`` keeps the original spelling.
    private static let fieldNames = Token.table([
        "Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Type",
        "Content-Length", "Transfer-Encoding", "Authorization", "Cookie", "Referer", "Origin", "Cache-Control",
        "X-Forwarded-For", "X-Forwarded-Proto",
    ])

    /// A known token: its bytes (for the comparison) next to the literal handed out.
    private struct Token {
        let bytes: [UInt8]
        let text: String

        static func table(_ texts: [String]) -> [Token] { texts.map { Token(bytes: Array($0.utf8), text: $0) } }
    }

    /// The method MHD parsed (NUL-terminated in its read buffer), interned when known.
    package static func method(_ text: UnsafePointer<CChar>) -> String { interned(text, among: methods) }

    /// The protocol version MHD parsed, interned when known.
    package static func version(_ text: UnsafePointer<CChar>) -> String { interned(text, among: versions) }

    /// A header field name MHD reported (already checked to be a token), interned when it is
    /// one of the common names spelled the usual way: `String(decoding:)` validates and
    /// builds a String per name (≈ 170 instructions), a length check and `memcmp` is ≈ 30.
    package static func fieldName(_ bytes: UnsafeRawBufferPointer) -> String { interned(bytes, among: fieldNames) }

    /// The interned literal when `bytes` spell one of the common field names exactly, else nil.
    package static func knownFieldName(_ bytes: UnsafeRawBufferPointer) -> String? { known(bytes, among: fieldNames) }

    /// The common field names handed out as literals (for the tests: each must be a token).
    package static var knownFieldNames: [String] { fieldNames.map(\.text) }

    private static func interned(_ text: UnsafePointer<CChar>, among known: [Token]) -> String {
        interned(UnsafeRawBufferPointer(start: text, count: strlen(text)), among: known)
    }

    /// Compared byte for byte (methods are case-sensitive, RFC 9110 §9.1); an unknown token,
    /// even invalid UTF-8, is decoded as before so that validation sees exactly what was sent.
    /// The length first, then `memcmp` on the stored bytes: `elementsEqual` between the
    /// literal's `UTF8View` and the C bytes cost ≈ 300 instructions per token, twice a request.
    private static func interned(_ bytes: UnsafeRawBufferPointer, among table: [Token]) -> String {
        known(bytes, among: table) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// The literal whose bytes are exactly `bytes`, or nil.
    private static func known(_ bytes: UnsafeRawBufferPointer, among known: [Token]) -> String? {
        for candidate in known where candidate.bytes.count == bytes.count {
            let equal = candidate.bytes.withUnsafeBytes { stored in
                // Both hold `bytes.count` bytes (checked above); known tokens are never empty.
                guard let storedStart = stored.baseAddress, let start = bytes.baseAddress else { return false }
                return memcmp(storedStart, start, bytes.count) == 0
            }
            if equal { return candidate.text }
        }
        return nil
    }
}
