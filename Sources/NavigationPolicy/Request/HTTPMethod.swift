/// Validation and normalization of HTTP method names.
enum HTTPMethod {
    /// Returns the method in upper case, or nil when it is not an RFC 9110 token.
    ///
    /// Methods are case-sensitive on the wire, but a policy written as `"POST"` must not
    /// be dodged by a client that says `post`, so matching folds them.
    static func normalized(_ method: String) -> String? {
        // The length first: `==` on a long string that is not NFC normalizes it (quadratic in a
        // run of combining marks: outside attack 14, R1). Then the usual methods: comparing small
        // strings is a register compare.
        guard !method.isEmpty, method.utf8.count <= 32 else { return nil }
        if method == "GET" || method == "POST" || method == "HEAD" { return method }
        // Almost every method arrives as an upper-case token: hand it back without copying.
        if method.utf8.allSatisfy({ $0 &- UInt8(ascii: "A") < 26 }) { return method }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(method.utf8.count)
        for byte in method.utf8 {
            guard HTTPToken.isTokenByte(byte) else { return nil }
            bytes.append(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
