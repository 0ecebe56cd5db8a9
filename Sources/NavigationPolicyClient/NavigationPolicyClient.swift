public import Foundation
public import NavigationPolicy

#if canImport(FoundationNetworking)
    // Linux: URLSession lives here; Apple platforms have it in Foundation.
    public import FoundationNetworking
#endif

/// The navigation policy inside the app: decides locally, in microseconds, with the same engine
/// and the same bundle as the daemon, and keeps itself up to date from the daemon.
///
/// At start it uses the last good bundle from ``Configuration/cacheDirectory``, else the one
/// shipped in the app; ``refresh()`` fetches `GET /v1/policy/bundle` with `If-None-Match`, and a
/// new bundle replaces the current one only after its signature (when a verifier is configured)
/// verified and it parsed and compiled. Anything else keeps the current bundle. Past half the
/// held bundle's signed lifetime a refresh asks without `If-None-Match`, so the daemon's re-issue
/// of the same policy renews the signed expiry before it passes (docs/bundles.md, "Renewal in
/// the app").
///
/// Fail closed: with no usable bundle at all, or for a request the engine cannot parse,
/// ``decide(_:)`` answers *cancel*, as the daemon answers an error that every client must treat
/// as cancel (docs/security.md, "Fail-closed rules").
public final class NavigationPolicyClient: Sendable {
    /// Where bundles come from and how they are checked.
    public struct Configuration: Sendable {
        /// The daemon's bundle endpoint, e.g. `https://policy.example.com/v1/policy/bundle`;
        /// nil when the app only uses its shipped bundle.
        public var bundleURL: URL?
        /// The bundle in the app, used until a good one is on disk; give a large one as a file
        /// (``ShippedBundle/init(contentsOf:)``), which is mapped rather than read.
        public var shippedBundle: ShippedBundle?
        /// Where the last good bundle is kept across launches (the app's Application Support or
        /// cache directory); nil to keep nothing on disk.
        public var cacheDirectory: URL?
        /// Key id → verifier: every bundle (shipped, on disk, fetched) must be signed by the key
        /// its signed `keyId` names, one of these (docs/bundles.md, "Key rotation").
        public var trustedKeys: [String: any BundleSignatureVerifier]
        /// One key for every bundle whatever its `keyId` (the form from before key ids); used
        /// only when ``trustedKeys`` is empty.
        public var verifier: (any BundleSignatureVerifier)?
        /// Reads version-1 bundles (no signed version or expiry, so no replay or expiry check);
        /// off by default. See ``BundleTrust/acceptsUnversionedBundles``.
        public var acceptsUnversionedBundles: Bool
        /// The session whose configuration refreshes use (each refresh makes a session of it
        /// with its own delegate, which streams the body into the cache directory); nil (the
        /// default) uses an ephemeral configuration that bypasses URLCache, so `If-None-Match`
        /// always reaches the daemon, and on Linux the client's own libcurl transport instead
        /// of URLSession (docs/integrations/ios.md, "The transport on Linux"). Nothing is made
        /// before the first refresh, so loading a bundle at launch costs no networking setup.
        public var session: URLSession?
        /// Limit on the wait for the next bytes of a refresh's answer (an idle timeout).
        public var requestTimeout: TimeInterval
        /// Limit on one whole refresh, answer and body: a server sending a byte now and then
        /// cannot hold `refresh()` (and the refreshes that join it) longer than this.
        public var refreshTimeout: TimeInterval
        /// Sent as `Authorization: Bearer …`: needed only when the daemon sets
        /// `server.requireTokenForDecide`, which also hides the bundle.
        public var authorizationToken: String?

        public init(
            bundleURL: URL? = nil, shippedBundle: ShippedBundle? = nil, cacheDirectory: URL? = nil,
            trustedKeys: [String: any BundleSignatureVerifier] = [:], verifier: (any BundleSignatureVerifier)? = nil,
            acceptsUnversionedBundles: Bool = false, session: URLSession? = nil, requestTimeout: TimeInterval = 10,
            authorizationToken: String? = nil, refreshTimeout: TimeInterval = 60
        ) {
            self.refreshTimeout = refreshTimeout
            self.authorizationToken = authorizationToken
            self.bundleURL = bundleURL
            self.shippedBundle = shippedBundle
            self.cacheDirectory = cacheDirectory
            self.trustedKeys = trustedKeys
            self.verifier = verifier
            self.acceptsUnversionedBundles = acceptsUnversionedBundles
            self.session = session
            self.requestTimeout = requestTimeout
        }

        /// The keys and rules every bundle is checked with.
        public var trust: BundleTrust {
            BundleTrust(trustedKeys: trustedKeys, verifier: verifier, acceptsUnversionedBundles: acceptsUnversionedBundles)
        }
    }

    /// Why ``decision(for:)`` did not decide; ``decide(_:)`` turns each into a cancel.
    public enum DecisionError: Error, Sendable, Equatable {
        /// No bundle loaded: none shipped, none on disk, none fetched yet.
        case noPolicy
        /// The engine cannot parse the request (the daemon answers 400 for it).
        case invalidRequest(NavigationRequestError)
    }

    /// Problems with the bundles found at start (a corrupt cache file, a shipped bundle that
    /// does not verify or has expired), in the order they were tried. Each one was ignored. In
    /// debug builds each is also written to standard error; ``init(strict:)`` throws instead.
    /// A compiled shipped bundle that a newer cached one outranks is checked only as far as its
    /// head (``init(configuration:)``), so a bad signature in it shows only with ``init(strict:)``.
    public let startupIssues: [BundleRejection]

    private let slot: PolicySnapshotSlot
    private let updater: BundleUpdater
    /// Why the shipped bundle was refused, for ``init(strict:)``.
    private let shippedRejection: BundleRejection?

    /// Loads the last good bundle from disk and the shipped one, and decides with the one of
    /// higher `policyVersion` (the disk copy on a tie): an app update that ships a newer bundle
    /// than the one on disk starts with it. Never throws: problems are in ``startupIssues``
    /// (and on standard error in debug builds) and, with no usable bundle, every decision is a
    /// cancel until a refresh succeeds. Use ``init(strict:)`` to fail on a broken shipped bundle.
    ///
    /// A compiled shipped bundle whose head claims a `policyVersion` not above a verified cached
    /// one's cannot win, so only its head is read: its signature and image are checked only when
    /// it may decide (issue 42: a cached launch pays for one bundle's check, not two).
    /// ``init(strict:)`` checks it in full at every launch.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, checkingShippedBundleInFull: false)
    }

    private init(configuration: Configuration, checkingShippedBundleInFull: Bool) {
        let slot = PolicySnapshotSlot()
        let cache = configuration.cacheDirectory.map(BundleCache.init(directory:))
        let trust = configuration.trust
        var issues: [BundleRejection] = []
        var cached: PublishedPolicy?
        if let cache {
            do throws(BundleRejection) {
                if let stored = try cache.load() {
                    // Its pages are handed back as the check reads them (MappedBundleFile), so
                    // the cached and the shipped bundle are never resident whole.
                    let bundle = try stored.mapping.checkingWithBoundedResidency { () throws(BundleRejection) in
                        try VerifiedBundle(inPlace: stored.bundle, signature: stored.signature, trust: trust)
                    }
                    cached = PublishedPolicy(bundle, source: .cache)
                }
            } catch {
                issues.append(BundleRejection(error.kind, "cached bundle ignored: \(error.reason)"))
            }
        }
        var shipped: PublishedPolicy?
        var shippedRejection: BundleRejection?
        if let bundle = configuration.shippedBundle {
            do throws(BundleRejection) {
                // A compiled one that cannot win over the cached bundle is left unchecked but for
                // its head (what the head shows wrong is still an issue); strict mode checks it
                // anyway, so a broken shipped bundle shows in development, not on the first
                // launch without a cache.
                if !checkingShippedBundleInFull, let cached, try bundle.loses(toCachedVersion: cached.policyVersion) {
                    shipped = nil
                } else {
                    shipped = PublishedPolicy(try bundle.verified(trust: trust), source: .shipped)
                }
            } catch {
                shippedRejection = error
                issues.append(BundleRejection(error.kind, "shipped bundle ignored: \(error.reason)"))
            }
        }
        // Before the slot is shared, so no writer can race this publish.
        if let loaded = Self.newer(cached, shipped) { slot.publish(loaded) }
        self.slot = slot
        self.startupIssues = issues
        self.shippedRejection = shippedRejection
        self.updater = BundleUpdater(slot: slot, configuration: configuration, cache: cache)
        #if DEBUG
            // Loud where the developer looks; release builds stay quiet and report through
            // startupIssues only.
            for issue in issues {
                try? FileHandle.standardError.write(contentsOf: Data("NavigationPolicyClient: \(issue)\n".utf8))
            }
        #endif
    }

    /// Like ``init(configuration:)``, but checks the shipped bundle in full even when a newer
    /// cached one decides, and throws its rejection (wrong format, bad signature, unknown key,
    /// expired, does not compile) instead of starting without it. For debug builds and tests, so
    /// a broken shipped bundle stops the app at once; a bad disk copy is not the app's fault and
    /// is still only reported in ``startupIssues``.
    public convenience init(strict configuration: Configuration) throws(BundleRejection) {
        self.init(configuration: configuration, checkingShippedBundleInFull: true)
        if let shippedRejection { throw shippedRejection }
    }

    /// The policy with the higher `policyVersion` (a version-1 bundle counts as lowest); `first`
    /// on a tie.
    private static func newer(_ first: PublishedPolicy?, _ second: PublishedPolicy?) -> PublishedPolicy? {
        guard let first else { return second }
        guard let second else { return first }
        return (second.policyVersion ?? 0) > (first.policyVersion ?? 0) ? second : first
    }

    /// The decision for one navigation, computed locally: no lock, no reference counting, no
    /// copy of the policy. A request the engine cannot parse, or no bundle at all, is a cancel
    /// (``Decision/handler`` and ``Decision/action`` nil), never an allow.
    public func decide(_ request: NavigationRequest) -> Decision {
        slot.withCurrent { published in
            guard let published else { return Self.failClosed(request) }
            do throws(NavigationRequestError) {
                return try published.policy.decide(request)
            } catch {
                return Self.failClosed(request)
            }
        }
    }

    /// Like ``decide(_:)``, but says why there is no decision instead of cancelling.
    public func decision(for request: NavigationRequest) throws(DecisionError) -> Decision {
        let result: Result<Decision, DecisionError> = slot.withCurrent { published in
            guard let published else { return .failure(.noPolicy) }
            do throws(NavigationRequestError) {
                return .success(try published.policy.decide(request))
            } catch {
                return .failure(.invalidRequest(error))
            }
        }
        return try result.get()
    }

    /// The revision deciding now (`sha256:…`, the daemon's policy revision); nil with no bundle.
    public var revision: String? { slot.withCurrent { $0?.revision } }

    /// Where the bundle deciding now came from; nil with no bundle.
    public var source: BundleSource? { slot.withCurrent { $0?.source } }

    /// Fetches the daemon's bundle once (`If-None-Match` with the current revision, left out once
    /// the bundle held is past half its signed lifetime, to renew its expiry). Concurrent calls
    /// share one request. Never throws: every failure keeps the current bundle and is described
    /// by the outcome.
    public func refresh() async -> RefreshOutcome {
        await updater.refresh()
    }

    /// The `policyVersion` deciding now; nil with no bundle or a version-1 one.
    public var policyVersion: Int? { slot.withCurrent { $0?.policyVersion } }

    /// How long the daemon asked the client to wait before the next refresh: the `max-age` of
    /// its last kept answer (`server.bundle.maxAgeSeconds`); nil before one. At most one day
    /// (86,400 s), the daemon's own limit, whatever the answer said. ``runPeriodicRefresh(minimumInterval:defaultInterval:)``
    /// waits this long; an app that schedules its own refreshes reads it after each one. A plain
    /// atomic read, callable from any thread.
    public var maxAge: Duration? { updater.currentMaxAge }

    /// Refreshes until the calling task is cancelled: after each answer it waits the daemon's
    /// `max-age` (never less than `minimumInterval`), after a failure `minimumInterval`.
    ///
    /// Run it in a task the app owns (`let refresher = Task { await client.runPeriodicRefresh() }`,
    /// `refresher.cancel()` when going to the background).
    public func runPeriodicRefresh(
        minimumInterval: Duration = .seconds(30), defaultInterval: Duration = .seconds(300)
    ) async {
        while !Task.isCancelled {
            let outcome = await refresh()
            let wait: Duration
            switch outcome {
            case .updated, .notModified, .unchanged:
                wait = max(minimumInterval, maxAge ?? defaultInterval)
            case .rejected, .unavailable:
                wait = minimumInterval
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
        }
    }

    /// The cancel the client answers when it cannot decide: no handler, no action.
    static func failClosed(_ request: NavigationRequest) -> Decision {
        Decision(verdict: .cancel, handler: nil, action: nil, location: nil, url: request.url)
    }
}
