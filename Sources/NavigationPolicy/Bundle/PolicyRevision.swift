/// How a policy revision is spelled: `sha256:` and the 64 lower-case hex digits of the SHA-256 of
/// the config's bytes. The daemon reports it (`/v1/policy`, the bundle's `ETag` and `revision`),
/// a compiled image records it, the client checks it; all of them spell it here.
///
/// The hash itself is not computed here (the core has no C and no hash of its own): the callers
/// hand in the digest, which the daemon and the command line take from libsodium.
public enum PolicyRevision {
    /// What every revision starts with, naming the hash.
    public static let prefix = "sha256:"
    /// The number of hex digits after ``prefix``: a SHA-256 digest is 32 bytes.
    static let hexDigitCount = 64

    /// The revision of a config whose SHA-256 digest is `digest`.
    public static func of(sha256 digest: some Collection<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text = Array(prefix.utf8)
        text.reserveCapacity(text.count + 2 * digest.count)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` is spelled as a revision: ``prefix`` and 64 lower-case hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        guard text.utf8.starts(with: prefix.utf8) else { return false }
        let hex = text.utf8.dropFirst(prefix.utf8.count)
        return hex.count == hexDigitCount
            && hex.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
