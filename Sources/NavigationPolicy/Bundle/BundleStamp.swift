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

    /// Whether half the signed lifetime (`issuedAt`…`expiresAt`) has passed at `unixSeconds`: the
    /// daemon then issues the bundle again on its next request, and a client holding it asks for
    /// that re-issue instead of a 304 (docs/bundles.md, "Re-issue", "Renewal in the app"). One rule for both sides, so
    /// a client never asks before the daemon would answer with a later expiry.
    public func isDueForReissue(atUnixSeconds unixSeconds: Int) -> Bool {
        unixSeconds >= issuedAt + (expiresAt - issuedAt) / 2
    }
}
