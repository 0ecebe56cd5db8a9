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
        // Over the contiguous UTF-8 (native Strings always have it): walking the String's
        // UTF-8 view byte by byte cost ~370 instructions per field, every proxied request.
        name.utf8.withContiguousStorageIfAvailable { FieldSyntax.isToken($0) } ?? FieldSyntax.isToken(name.utf8)
    }

    /// Whether `value` has no control character except HTAB, and no DEL (RFC 9110 §5.5).
    public static func isValidValue(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { FieldSyntax.isFieldValue($0) } ?? FieldSyntax.isFieldValue(value.utf8)
    }

    /// The name of the first field that is not valid (name or value), or nil when all are.
    public static func firstInvalidField(in headers: HTTPHeaders) -> String? {
        for field in headers where !isValidName(field.name) || !isValidValue(field.value) { return field.name }
        return nil
    }
}
