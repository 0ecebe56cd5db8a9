/// Why a policy bundle was not used. The client keeps the bundle it had (or, with none,
/// cancels every navigation); nothing here ever makes it allow more.
public struct BundleRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem, for branching and metrics.
    public enum Kind: String, Sendable, Equatable {
        /// A verifier is configured and the bundle came without a signature.
        case unsigned
        /// The signature is not valid base64, or the key refused it.
        case badSignature = "bad-signature"
        /// The bundle's signed `keyId` is not one of ``BundleTrust/trustedKeys``.
        case unknownKey = "unknown-key"
        /// A version-1 bundle (no signed `policyVersion` or expiry) and
        /// ``BundleTrust/acceptsUnversionedBundles`` is not set.
        case unversioned
        /// Past its signed `expiresAt`.
        case expired
        /// Its `policyVersion` is not above the one of the bundle deciding now (with another
        /// revision): an older bundle replayed, or a daemon behind on its config.
        case olderVersion = "older-version"
        /// Not a bundle: bad JSON, a wrong `format`/`version`, a missing or malformed member.
        case malformed
        /// A bundle whose policy does not compile with this engine.
        case invalidPolicy = "invalid-policy"
        /// The `ETag` does not name the revision inside the body.
        case revisionMismatch = "revision-mismatch"
        /// Larger than ``VerifiedBundle/maximumBytes``.
        case tooLarge = "too-large"
        /// The on-disk copy cannot be read or is not in the cache file format.
        case unreadableCache = "unreadable-cache"
        /// The shipped bundle's file (``NavigationPolicyClient/ShippedBundle/init(contentsOf:)``)
        /// is missing or cannot be read.
        case unreadable
    }

    public var kind: Kind
    /// What is wrong, for a log line: at most 1 KiB, its control characters escaped, whatever
    /// text of the refused bundle it quotes (``BundleText/boundedReason(_:)``).
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        // Bounded where every reason is formed: the app's outcome, the daemon's log line, status
        // field and 422 all carry this text (attack round 9, F2).
        self.reason = BundleText.boundedReason(reason)
    }

    public var description: String { "\(kind.rawValue): \(reason)" }
}
