/// RFC 9110's `tchar` (§5.6.2): the bytes a token is made of, in a method, a field name or a
/// denial's field name, and in the response heads the app client reads. The rule
/// `FieldSyntax.isToken` (HTTPTypes, which the core does not link) applies; a test holds the two
/// to the same answer for every byte.
package enum HTTPToken {
    /// Whether `byte` may stand in a token.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
