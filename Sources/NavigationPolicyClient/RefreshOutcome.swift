/// What one ``NavigationPolicyClient/refresh()`` did.
public enum RefreshOutcome: Sendable, Equatable {
    /// A new bundle was verified, compiled and is now deciding. `persisted` is nil when it was
    /// written to the cache directory (or no directory is configured), else why it was not.
    case updated(revision: String, persisted: BundleCacheWriteError?)
    /// `304 Not Modified`: the daemon still serves the revision in use.
    case notModified(revision: String)
    /// A 200 carrying the revision already in use (a daemon or proxy that ignored
    /// `If-None-Match`): verified like any bundle, then nothing changed.
    case unchanged(revision: String)
    /// The daemon answered with a bundle this client refuses; the previous bundle keeps deciding.
    case rejected(BundleRejection)
    /// No usable answer (connection refused, timeout, an unexpected status); the previous bundle
    /// keeps deciding.
    case unavailable(reason: String)
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
