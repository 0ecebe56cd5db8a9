/// Standard padded base64 (RFC 4648 §4), as signatures and public keys travel in headers,
/// files and app configuration.
public enum Base64Text {
    /// `bytes` as padded standard base64.
    public static func encode(_ bytes: [UInt8]) -> String { Sodium.base64(bytes) }

    /// The bytes of padded standard base64 `text`, or nil when any character is outside the
    /// alphabet (no whitespace, no URL-safe alphabet, padding required).
    public static func decode(_ text: String) -> [UInt8]? {
        guard Sodium.isReady else { return nil }
        return Sodium.decodeBase64(Array(text.utf8))
    }
}
