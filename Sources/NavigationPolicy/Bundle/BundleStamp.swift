/// The signed freshness members of a version-2 or -3 bundle (docs/bundles.md, "Freshness"): the
/// daemon's `PolicyBundle` writes them and the client's readers check them, with this one type,
/// so the writer and the reader cannot drift apart. People-facing wording (the expiry reason in
/// RFC 3339 times) is the client's (`BundleStamp+Expiry.swift`): it needs Foundation.
public struct BundleStamp: Sendable, Equatable {
    /// Monotonic: a client refuses a bundle whose version is not above the one it holds.
    public var policyVersion: Int
    /// Unix seconds when the daemon (or `navpolicyd bundle`) built it.
    public var issuedAt: Int
    /// Unix seconds after which a client refuses to adopt it.
    public var expiresAt: Int
    /// The id of the key that signed it; nil when built unsigned.
    public var keyId: String?

    public init(policyVersion: Int, issuedAt: Int, expiresAt: Int, keyId: String?) {
        self.policyVersion = policyVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyId = keyId
    }

    /// Whether the bundle is past its `expiresAt` at `unixSeconds`.
    public func isExpired(atUnixSeconds unixSeconds: Int) -> Bool { unixSeconds >= expiresAt }
}
