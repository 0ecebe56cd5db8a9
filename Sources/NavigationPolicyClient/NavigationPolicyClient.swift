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
/// verified and it parsed and compiled. Anything else keeps the current bundle.
///
/// Fail closed: with no usable bundle at all, or for a request the engine cannot parse,
/// ``decide(_:)`` answers *cancel*, as the daemon answers an error that every client must treat
/// as cancel (docs/security.md, "Fail-closed rules").
public final class NavigationPolicyClient: Sendable {
    /// A bundle compiled into the app, used when there is no good bundle on disk yet.
    public struct ShippedBundle: Sendable {
        /// The bytes `navpolicyd bundle --config … --output FILE` wrote.
        public var bytes: [UInt8]
        /// The detached signature (the decoded contents of `FILE.sig`), when signed.
        public var signature: [UInt8]?

        public init(bytes: [UInt8], signature: [UInt8]? = nil) {
            self.bytes = bytes
            self.signature = signature
        }
    }

    /// Where bundles come from and how they are checked.
    public struct Configuration: Sendable {
        /// The daemon's bundle endpoint, e.g. `https://policy.example.com/v1/policy/bundle`;
        /// nil when the app only uses its shipped bundle.
        public var bundleURL: URL?
        public var shippedBundle: ShippedBundle?
        /// Where the last good bundle is kept across launches (the app's Application Support or
        /// cache directory); nil to keep nothing on disk.
        public var cacheDirectory: URL?
        /// When set, every bundle (shipped, on disk, fetched) must carry a valid signature.
        public var verifier: (any BundleSignatureVerifier)?
        /// The session refreshes use; nil (the default) makes an ephemeral one that bypasses
        /// URLCache, so `If-None-Match` always reaches the daemon. It is made at the first
        /// refresh, so loading a bundle at launch costs no networking setup.
        public var session: URLSession?
        /// Limit for one refresh request.
        public var requestTimeout: TimeInterval
        /// Sent as `Authorization: Bearer …`: needed only when the daemon sets
        /// `server.requireTokenForDecide`, which also hides the bundle.
        public var authorizationToken: String?

        public init(
            bundleURL: URL? = nil, shippedBundle: ShippedBundle? = nil, cacheDirectory: URL? = nil,
            verifier: (any BundleSignatureVerifier)? = nil, session: URLSession? = nil, requestTimeout: TimeInterval = 10,
            authorizationToken: String? = nil
        ) {
            self.authorizationToken = authorizationToken
            self.bundleURL = bundleURL
            self.shippedBundle = shippedBundle
            self.cacheDirectory = cacheDirectory
            self.verifier = verifier
            self.session = session
            self.requestTimeout = requestTimeout
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
    /// does not verify), in the order they were tried. Each one was ignored.
    public let startupIssues: [BundleRejection]

    private let slot: PolicySnapshotSlot
    private let updater: BundleUpdater

    /// Loads the last good bundle from disk, else the shipped one. Never throws: problems are in
    /// ``startupIssues`` and, with no usable bundle, every decision is a cancel until a refresh
    /// succeeds.
    public init(configuration: Configuration) {
        let slot = PolicySnapshotSlot()
        let cache = configuration.cacheDirectory.map(BundleCache.init(directory:))
        var issues: [BundleRejection] = []
        var loaded: PublishedPolicy?
        if let cache {
            do throws(BundleRejection) {
                if let stored = try cache.load() {
                    let bundle = try VerifiedBundle(
                        bytes: stored.bytes, signature: stored.signature, verifier: configuration.verifier)
                    loaded = PublishedPolicy(bundle, source: .cache)
                }
            } catch {
                issues.append(BundleRejection(error.kind, "cached bundle ignored: \(error.reason)"))
            }
        }
        if loaded == nil, let shipped = configuration.shippedBundle {
            do throws(BundleRejection) {
                let bundle = try VerifiedBundle(
                    bytes: shipped.bytes, signature: shipped.signature, verifier: configuration.verifier)
                loaded = PublishedPolicy(bundle, source: .shipped)
            } catch {
                issues.append(BundleRejection(error.kind, "shipped bundle ignored: \(error.reason)"))
            }
        }
        // Before the slot is shared, so no writer can race this publish.
        if let loaded { slot.publish(loaded) }
        self.slot = slot
        self.startupIssues = issues
        self.updater = BundleUpdater(slot: slot, configuration: configuration, cache: cache)
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

    /// Fetches the daemon's bundle once (`If-None-Match` with the current revision). Concurrent
    /// calls share one request. Never throws: every failure keeps the current bundle and is
    /// described by the outcome.
    public func refresh() async -> RefreshOutcome {
        await updater.refresh()
    }

    /// The `max-age` of the daemon's last kept answer (`server.bundle.maxAgeSeconds`), nil before
    /// one; at most one day (86,400 s), the daemon's own limit, whatever the answer said.
    public var maxAge: Duration? {
        get async { await updater.maxAge }
    }

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
                wait = max(minimumInterval, await updater.maxAge ?? defaultInterval)
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
