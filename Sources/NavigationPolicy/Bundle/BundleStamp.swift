/// A bundle's whole numbers (`policyVersion`, `issuedAt`, `expiresAt`, Unix seconds): up to
/// 2^53 - 1, so 64 bits. `Int` is that on every platform an app runs on; the WebAssembly build's
/// wasm32 has a 32-bit `Int`, which cannot hold a time past 2038 (issue 43), so there the
/// numbers are `Int64`. The same type on 64-bit platforms, so the API does not change.
#if _pointerBitWidth(_64)
    public typealias BundleNumber = Int
#else
    public typealias BundleNumber = Int64
#endif

/// The signed freshness members of a version-2 or -3 bundle (docs/bundles.md, "Freshness"): the
/// daemon's `PolicyBundle` writes them and the client's readers check them, with this one type,
/// so the writer and the reader cannot drift apart, and the WebAssembly build (issue 43) checks with
/// it too, wording included.
public struct BundleStamp: Sendable, Equatable {
    /// Monotonic: a client refuses a bundle whose version is not above the one it holds.
    public var policyVersion: BundleNumber
    /// Unix seconds when the daemon (or `navpolicyd bundle`) built it.
    public var issuedAt: BundleNumber
    /// Unix seconds after which a client refuses to adopt it.
    public var expiresAt: BundleNumber
    /// The id of the key that signed it; nil when built unsigned.
    public var keyId: String?

    public init(policyVersion: BundleNumber, issuedAt: BundleNumber, expiresAt: BundleNumber, keyId: String?) {
        self.policyVersion = policyVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyId = keyId
    }

    /// Whether the bundle is past its `expiresAt` at `unixSeconds`.
    public func isExpired(atUnixSeconds unixSeconds: BundleNumber) -> Bool { unixSeconds >= expiresAt }

    /// Whether half the signed lifetime (`issuedAt`…`expiresAt`) has passed at `unixSeconds`: the
    /// daemon then issues the bundle again on its next request, and a client holding it asks for
    /// that re-issue instead of a 304 (docs/bundles.md, "Re-issue", "Renewal in the app"). One rule for both sides, so
    /// a client never asks before the daemon would answer with a later expiry.
    public func isDueForReissue(atUnixSeconds unixSeconds: BundleNumber) -> Bool {
        unixSeconds >= issuedAt + (expiresAt - issuedAt) / 2
    }

    /// Why a bundle expired at `unixSeconds` is refused, in the RFC 3339 times `bundle verify`'s
    /// OK line prints: one wording for the client, `check --bundle` and `bundle verify`.
    public func expiryReason(atUnixSeconds unixSeconds: BundleNumber) -> String {
        "expired at \(Self.iso8601(unixSeconds: expiresAt)); it is \(Self.iso8601(unixSeconds: unixSeconds)) now"
    }

    /// Unix seconds as an RFC 3339 UTC time (`2026-12-05T00:00:00Z`), for people.
    ///
    /// Plain arithmetic (``CivilDate``), not Foundation's formatter: the WebAssembly build compiles
    /// this file and has no Foundation (issue 43). `BundleStampTimeTests` holds it to
    /// `ISO8601DateFormatter`.
    public static func iso8601(unixSeconds: BundleNumber) -> String {
        let secondsPerDay: BundleNumber = 86_400
        let days = unixSeconds >= 0 ? unixSeconds / secondsPerDay : (unixSeconds + 1) / secondsPerDay - 1
        let secondOfDay = unixSeconds - days * secondsPerDay
        let date = CivilDate(daysSinceEpoch: Int64(days))
        func padded<Number: BinaryInteger>(_ value: Number, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.utf8.count)) + digits
        }
        return padded(date.year, 4) + "-" + padded(date.month, 2) + "-" + padded(date.day, 2) + "T"
            + padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":" + padded(secondOfDay % 60, 2) + "Z"
    }
}
