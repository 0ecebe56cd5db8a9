import Foundation
import NavigationPolicy
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The only writer of the client's policy: fetches, checks and publishes bundles one at a time.
actor BundleUpdater {
    private let slot: PolicySnapshotSlot
    private let configuration: NavigationPolicyClient.Configuration
    private let cache: BundleCache?
    private var inFlight: Task<RefreshOutcome, Never>?
    /// The kept `max-age` in seconds, -1 before one: atomic so ``currentMaxAge`` needs no `await`.
    private let keptMaxAgeSeconds = Atomic<Int>(-1)
    private var defaultSession: URLSession?

    init(slot: PolicySnapshotSlot, configuration: NavigationPolicyClient.Configuration, cache: BundleCache?) {
        self.slot = slot
        self.configuration = configuration
        self.cache = cache
    }

    func refresh() async -> RefreshOutcome {
        // Concurrent callers join the request in flight rather than racing their own: two fetches
        // answered out of order could otherwise publish the older bundle last.
        if let inFlight { return await inFlight.value }
        let task = Task { await self.fetchAndApply() }
        inFlight = task
        let outcome = await task.value
        inFlight = nil
        return outcome
    }

    private func fetchAndApply() async -> RefreshOutcome {
        guard let url = configuration.bundleURL else {
            return .unavailable(reason: "no bundleURL configured")
        }
        let currentRevision = slot.withCurrent { $0?.revision }
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.requestTimeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let currentRevision {
            request.setValue("\"\(currentRevision)\"", forHTTPHeaderField: "If-None-Match")
        }
        if let token = configuration.authorizationToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        // A download task: the body goes to a file as it arrives (a data task would hold it in
        // memory twice over, which for a 1M-host compiled bundle was 200+ MB; issue 42).
        let body: URL
        let response: URLResponse
        do {
            (body, response) = try await session().download(for: request)
        } catch {
            return .unavailable(reason: error.localizedDescription)
        }
        // The session's file is ours to delete, whatever the answer; removing it while the bundle
        // is mapped from it (no cache directory) is fine: the mapping keeps the data.
        defer { try? FileManager.default.removeItem(at: body) }
        guard let http = response as? HTTPURLResponse else {
            return .unavailable(reason: "not an HTTP response")
        }
        // Unsigned (headers are never covered by the bundle's signature) and possibly injected,
        // so taken only from an answer the client keeps, and never longer than the daemon allows.
        let answeredMaxAge = http.value(forHTTPHeaderField: "Cache-Control").flatMap(Self.acceptedMaxAgeSeconds)
        switch http.statusCode {
        case 304:
            guard let currentRevision else {
                return .unavailable(reason: "304 Not Modified without a bundle to keep")
            }
            keep(answeredMaxAge)
            return .notModified(revision: currentRevision)
        case 200:
            break
        default:
            return .unavailable(reason: "HTTP \(http.statusCode) from \(url.absoluteString)")
        }
        let signature: [UInt8]?
        if let header = http.value(forHTTPHeaderField: "Navpolicy-Bundle-Signature") {
            guard let decoded = Data(base64Encoded: header.trimmingCharacters(in: .whitespaces)) else {
                return .rejected(BundleRejection(.badSignature, "Navpolicy-Bundle-Signature is not base64"))
            }
            signature = [UInt8](decoded)
        } else {
            signature = nil
        }
        let candidate: DownloadedBundle
        switch stageAndMap(body, signature: signature) {
        case .success(let mapped): candidate = mapped
        case .failure(let failure): return failure.outcome
        }
        // Deleted unless installed below: a refused or failed download leaves the cache as it was.
        defer {
            if let staged = candidate.staged { try? FileManager.default.removeItem(at: staged) }
        }
        // Its pages are handed back as the check reads them: the bundle deciding now and this one
        // are never both resident whole.
        let bundle: VerifiedBundle
        do {
            let trust = configuration.trust
            bundle = try candidate.mapping.checkingWithBoundedResidency { () throws(BundleRejection) in
                try VerifiedBundle(inPlace: candidate.bundle, signature: signature, trust: trust)
            }
        } catch {
            return .rejected(error)
        }
        if let etag = http.value(forHTTPHeaderField: "ETag"), Self.entityTag(etag) != bundle.revision {
            return .rejected(
                BundleRejection(.revisionMismatch, "ETag \(etag) does not name the body's revision \(bundle.revision)"))
        }
        if bundle.revision == currentRevision {
            keep(answeredMaxAge)
            return .unchanged(revision: bundle.revision)
        }
        // Replay: a validly signed bundle that is not newer than the one deciding. Refused, and
        // its max-age not kept: the answer is not one the client keeps.
        if let rejection = Self.replayRejection(bundle, current: slot.withCurrent { $0?.policyVersion }) {
            return .rejected(rejection)
        }
        keep(answeredMaxAge)
        slot.publish(PublishedPolicy(bundle, source: .daemon))
        guard let cache else { return .updated(revision: bundle.revision, cache: .notConfigured) }
        guard let staged = candidate.staged else {
            let failure = candidate.stagingError ?? BundleCacheWriteError(path: cache.file.path, reason: "not written")
            return .updated(revision: bundle.revision, cache: .failed(failure))
        }
        do throws(BundleCacheWriteError) {
            try cache.install(staged)
        } catch {
            return .updated(revision: bundle.revision, cache: .failed(error))
        }
        return .updated(revision: bundle.revision, cache: .written)
    }

    /// A downloaded bundle mapped for its check: from its cache file staged beside the last good
    /// one (so that, once verified, a rename makes it the last good one), or from the session's
    /// own file when there is no cache directory or it cannot be written.
    private struct DownloadedBundle {
        let bundle: PolicyImageBytes
        let mapping: MappedBundleFile
        /// The staged cache file; nil when the bundle is mapped from the session's file.
        let staged: URL?
        /// Why it could not be staged, when a cache is configured.
        let stagingError: BundleCacheWriteError?
    }

    /// The body at `body` staged in the cache directory (when there is one) and mapped; an
    /// outcome to return instead when it is too large or cannot be read at all.
    private func stageAndMap(_ body: URL, signature: [UInt8]?) -> Result<DownloadedBundle, RefreshFailure> {
        var stagingError: BundleCacheWriteError?
        if let cache {
            cache.removeAbandonedStagingFiles()
            do throws(BundleCache.StageFailure) {
                let staged = try cache.stage(body, signature: signature)
                do throws(BundleRejection) {
                    guard let stored = try BundleCache.load(staged) else {
                        return .failure(RefreshFailure(.unavailable(reason: "\(staged.path) vanished")))
                    }
                    return .success(
                        DownloadedBundle(bundle: stored.bundle, mapping: stored.mapping, staged: staged, stagingError: nil))
                } catch {
                    try? FileManager.default.removeItem(at: staged)
                    return .failure(RefreshFailure(.unavailable(reason: error.reason)))
                }
            } catch {
                switch error {
                case .tooLarge(let bytes):
                    let limit = VerifiedBundle.maximumFileBytes
                    let rejection = BundleRejection(.tooLarge, "over \(bytes) bytes; the limit is \(limit)")
                    return .failure(RefreshFailure(.rejected(rejection)))
                case .write(let failure):
                    stagingError = failure
                }
            }
        }
        let mapping: MappedBundleFile
        do throws(MappedBundleFile.Failure) {
            mapping = try MappedBundleFile.map(body, maxBytes: VerifiedBundle.maximumFileBytes)
        } catch {
            if case .tooLarge = error {
                return .failure(RefreshFailure(.rejected(BundleRejection(.tooLarge, error.reason))))
            }
            return .failure(RefreshFailure(.unavailable(reason: "the downloaded bundle cannot be read: \(error.reason)")))
        }
        return .success(DownloadedBundle(bundle: mapping.bytes, mapping: mapping, staged: nil, stagingError: stagingError))
    }

    /// The outcome of a refresh that ends before the bundle is checked, as an `Error` for `Result`.
    private struct RefreshFailure: Error {
        let outcome: RefreshOutcome
        init(_ outcome: RefreshOutcome) { self.outcome = outcome }
    }

    /// The `max-age` of the last kept answer; nil before one.
    nonisolated var currentMaxAge: Duration? {
        let seconds = keptMaxAgeSeconds.load(ordering: .relaxed)
        return seconds < 0 ? nil : .seconds(seconds)
    }

    private func keep(_ answeredMaxAge: Int?) {
        if let answeredMaxAge { keptMaxAgeSeconds.store(answeredMaxAge, ordering: .relaxed) }
    }

    /// Why `bundle` (another revision than the current one) must not replace a policy of
    /// version `current`; nil when it may. A version-1 current policy (nil) can be replaced by
    /// anything that verified; a version-1 bundle cannot replace a versioned one.
    static func replayRejection(_ bundle: VerifiedBundle, current: Int?) -> BundleRejection? {
        guard let current else { return nil }
        guard let version = bundle.stamp?.policyVersion else {
            return BundleRejection(.olderVersion, "a version-1 bundle has no policyVersion; the one deciding has \(current)")
        }
        guard version > current else {
            return BundleRejection(
                .olderVersion,
                "policyVersion \(version) is not above \(current), the version deciding now (revision \(bundle.revision))")
        }
        return nil
    }

    /// The configured session, else an ephemeral one without URLCache, made once.
    private func session() -> URLSession {
        if let session = configuration.session ?? defaultSession { return session }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: sessionConfiguration)
        defaultSession = session
        return session
    }

    /// The longest `max-age` the client keeps: the daemon's own limit for
    /// `server.bundle.maxAgeSeconds` (one day), so a forged or injected answer cannot stop the
    /// app from looking for a new policy for longer than the daemon ever asks.
    static let maximumMaxAgeSeconds = 86_400

    /// The refresh interval an answer's Cache-Control asks for, capped at ``maximumMaxAgeSeconds``;
    /// nil when it has no valid `max-age`.
    static func acceptedMaxAge(_ cacheControl: String) -> Duration? {
        acceptedMaxAgeSeconds(cacheControl).map { .seconds($0) }
    }

    /// ``acceptedMaxAge(_:)`` in whole seconds.
    static func acceptedMaxAgeSeconds(_ cacheControl: String) -> Int? {
        maxAgeSeconds(cacheControl).map { min($0, maximumMaxAgeSeconds) }
    }

    /// `max-age=N` from a Cache-Control value (other directives ignored); nil when absent or malformed.
    static func maxAgeSeconds(_ value: String) -> Int? {
        for directive in value.split(separator: ",") {
            let trimmed = directive.trimmingCharacters(in: .whitespaces).lowercased()
            guard trimmed.hasPrefix("max-age=") else { continue }
            let digits = trimmed.dropFirst("max-age=".count)
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(digits)
            else {
                return nil
            }
            return seconds
        }
        return nil
    }

    /// The opaque tag of an `ETag` value: quotes and a weak `W/` prefix removed.
    static func entityTag(_ value: String) -> String {
        var tag = Substring(value.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }
}
