public import HTTPTypes

/// RFC 9110 field syntax, checked by the proxy itself before anything is forwarded.
///
/// The HTTP server rejects malformed heads too; this is the second line. A field name that
/// is not a token, or a value with a control character other than HTAB (CR, LF, NUL …),
/// could end the field early in libcurl's request and start a hidden one: request
/// smuggling. Such a request is refused, never forwarded with the field dropped or mended.
public enum HeaderFieldSyntax {
    /// Whether `name` is a non-empty `token` (RFC 9110 §5.1, §5.6.2).
    public static func isValidName(_ name: String) -> Bool {
        !name.utf8.isEmpty && name.utf8.allSatisfy(isTokenCharacter)
    }

    /// Whether `value` has no control character except HTAB, and no DEL (RFC 9110 §5.5).
    public static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The name of the first field that is not valid (name or value), or nil when all are.
    public static func firstInvalidField(in headers: HTTPHeaders) -> String? {
        for field in headers where !isValidName(field.name) || !isValidValue(field.value) { return field.name }
        return nil
    }

    /// tchar: ALPHA / DIGIT / "!#$%&'*+-.^_`|~".
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    private static let tokenSymbols: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)
}
