/// Key ids name the key a policy bundle is signed with (its signed `keyId` member), so an app
/// that trusts several keys during a rotation checks the one key named instead of trying each.
public enum BundleKeyID {
    /// The id of `publicKey` when the operator names none: `ed25519-` and the first 16 hex
    /// digits of the SHA-256 of the raw 32-byte key. Derived, so the daemon, `navpolicyd bundle`
    /// and the docs' rotation steps agree on it without a setting to keep in sync.
    public static func derived(from publicKey: Ed25519PublicKey) -> String {
        "ed25519-" + String(SHA256.hexDigest(publicKey.rawBytes).prefix(16))
    }

    /// Why `id` is not a key id, or nil when it is one: 1 to 64 characters of `A-Z a-z 0-9 . _ -`,
    /// so it is safe in a log line, a file name and a Swift dictionary literal alike.
    public static func problem(_ id: String) -> String? {
        guard (1...64).contains(id.utf8.count) else { return "a key id is 1 to 64 characters" }
        let allowed = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed ? nil : "a key id has only the characters A-Z a-z 0-9 . _ -"
    }
}
