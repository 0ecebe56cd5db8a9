/// What one ``NavigationPolicyClient/refresh()`` did. ``isSuccess`` says whether the daemon
/// answered with a bundle the client accepts (new or the same); every other case leaves the
/// previous bundle deciding.
public enum RefreshOutcome: Sendable, Equatable {
    /// A new bundle was verified, compiled and is now deciding; `cache` says whether it was
    /// also written as the last good bundle. Also a later issue of the revision in use (the
    /// same policy with a renewed signature and a later `expiresAt`, fetched once the one held
    /// is past half its lifetime): the revision is then the same as before.
    case updated(revision: String, cache: CacheWrite)
    /// `304 Not Modified`: the daemon still serves the revision in use.
    case notModified(revision: String)
    /// A 200 carrying the revision already in use, issued no later than the one held (a daemon
    /// or proxy that ignored `If-None-Match`, or a renewal the daemon had not re-issued yet):
    /// verified like any bundle, then nothing changed.
    case unchanged(revision: String)
    /// The daemon answered with a bundle this client refuses (bad signature, unknown key,
    /// expired, an older `policyVersion`, an earlier issue of the revision in use …); the
    /// previous bundle keeps deciding.
    case rejected(BundleRejection)
    /// No usable answer (connection refused, timeout, an unexpected status); the previous bundle
    /// keeps deciding.
    case unavailable(reason: String)

    /// What happened to the on-disk copy of a new bundle.
    public enum CacheWrite: Sendable, Equatable {
        /// Written to ``NavigationPolicyClient/Configuration/cacheDirectory``.
        case written
        /// No cache directory is configured.
        case notConfigured
        /// The write failed; the new bundle still decides, but a restart will not find it.
        case failed(BundleCacheWriteError)
    }

    /// True for ``updated(revision:cache:)``, ``notModified(revision:)`` and
    /// ``unchanged(revision:)``: the daemon was reached and its bundle is the one deciding.
    public var isSuccess: Bool {
        switch self {
        case .updated, .notModified, .unchanged: true
        case .rejected, .unavailable: false
        }
    }
}

/// Where the bundle that is deciding came from.
extension NavigationPolicyClient {
    public enum BundleSource: String, Sendable, Equatable {
        /// The bundle compiled into the app (``Configuration/shippedBundle``).
        case shipped
        /// The last good bundle, read from ``Configuration/cacheDirectory`` at start.
        case cache
        /// Fetched from the daemon by a refresh.
        case daemon
    }
}
