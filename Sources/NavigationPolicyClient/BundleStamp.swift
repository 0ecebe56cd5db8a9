import Foundation

/// The signed freshness members of a version-2 bundle (docs/bundles.md, "Freshness").
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

    /// Why a bundle expired at `unixSeconds` is refused, in the RFC 3339 times `bundle verify`'s
    /// OK line prints: one wording for the client, `check --bundle` and `bundle verify`.
    public func expiryReason(atUnixSeconds unixSeconds: Int) -> String {
        "expired at \(Self.iso8601(unixSeconds: expiresAt)); it is \(Self.iso8601(unixSeconds: unixSeconds)) now"
    }

    /// Unix seconds as an RFC 3339 UTC time (`2026-12-05T00:00:00Z`), for people.
    public static func iso8601(unixSeconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}
