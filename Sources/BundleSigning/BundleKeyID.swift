import PolicySections

/// Key ids name the key a policy bundle is signed with (its signed `keyId` member), so an app
/// that trusts several keys during a rotation checks the one key named instead of trying each.
public enum BundleKeyID {
    /// The id of `publicKey` when the operator names none: `ed25519-` and the first 16 hex
    /// digits of the SHA-256 of the raw 32-byte key. Derived, so the daemon, `navpolicyd bundle`
    /// and the docs' rotation steps agree on it without a setting to keep in sync.
    public static func derived(from publicKey: Ed25519PublicKey) -> String {
        "ed25519-" + String(SHA256.hexDigest(publicKey.rawBytes).prefix(16))
    }

    /// Why `id` is not a key id, or nil when it is one (``BundleKeyIDFormat/problem(_:)``: the
    /// rule lives with the config sections, so a core-only build checks `keyId` the same way).
    public static func problem(_ id: String) -> String? { BundleKeyIDFormat.problem(id) }
}
