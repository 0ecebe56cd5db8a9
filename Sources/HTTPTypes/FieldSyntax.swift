/// RFC 9110 field syntax on raw bytes, shared by the server's head checks and the proxy's
/// forwarding checks so both refuse exactly the same fields.
public enum FieldSyntax {
    /// Whether `bytes` is a non-empty token (RFC 9110 §5.6.2): field names and methods.
    @inlinable
    public static func isToken(_ bytes: some Sequence<UInt8>) -> Bool {
        var empty = true
        for byte in bytes {
            // tchar as two 64-bit masks: one shift and test per byte, no table, no allocation.
            let isTokenCharacter =
                byte < 64
                ? (tokenMaskLow >> UInt64(byte)) & 1 == 1
                : byte < 128 ? (tokenMaskHigh >> UInt64(byte - 64)) & 1 == 1 : false
            guard isTokenCharacter else { return false }
            empty = false
        }
        return !empty
    }

    /// Whether `bytes` may be a field value: no control characters except HTAB, no DEL
    /// (RFC 9110 §5.5). CR and LF inside a value are how requests are smuggled.
    @inlinable
    public static func isFieldValue(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where (byte < 0x20 && byte != 0x09) || byte == 0x7F { return false }
        return true
    }

    /// tchar below 64: `!#$%&'*+-.` and digits.
    @usableFromInline static let tokenMaskLow: UInt64 = 0x03FF_6CFA_0000_0000
    /// tchar from 64 to 127: letters, `^_`|~`.
    @usableFromInline static let tokenMaskHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE
}
