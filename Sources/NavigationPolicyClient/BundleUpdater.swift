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

    init(slot: PolicySnapshotSlot, configuration: NavigationPolicyClient.Configuration, cache: BundleCache?) {
        self.slot = slot
        self.configuration = configuration
        self.cache = cache
    }

    func refresh() async -> RefreshOutcome {
        // Concurrent callers join the request in flight rather than racing their own: two fetches
        // answered out of order could otherwise publish the older bundle last.
        if let inFlight { return await inFlight.value }
        let task = Task { await self.fetchAndApply().withBoundedReason }
        inFlight = task
        let outcome = await task.value
        inFlight = nil
        return outcome
    }

    private func fetchAndApply() async -> RefreshOutcome {
        guard let url = configuration.bundleURL else {
            return .unavailable(reason: "no bundleURL configured")
        }
        // This actor is the only writer of the slot, so what it holds now is what it holds until
        // this refresh publishes (a strong reference: `retained` keeps it alive anyway).
        let held = slot.withCurrent { $0 }
        let currentRevision = held?.revision
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.requestTimeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // Past half its lifetime the held bundle is renewed: asked for without If-None-Match, as
        // a 304 would never bring the daemon's re-issue with its later expiry (finding F6).
        let renewing = BundleRenewal.isDue(held?.stamp, atUnixSeconds: Int(Date().timeIntervalSince1970))
        if let currentRevision, !renewing {
            request.setValue("\"\(currentRevision)\"", forHTTPHeaderField: "If-None-Match")
        }
        if let token = configuration.authorizationToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        // Not compressed: the body is mapped as it lies, and an answer that is compressed anyway
        // counts against the limit as it inflates (BundleDownload).
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let cache = self.cache
        // Streamed into its cache file as it arrives (issue 42; finding F3): no whole body in
        // memory, no session temporary file, never more than the limit on disk.
        let outcome = await download(request) { http throws(BundleCacheWriteError) in
            let signature = (try? BundleUpdater.signature(from: http).get()) ?? nil
            if let cache {
                cache.removeAbandonedStagingFiles()
                if let staged = try? cache.createStagingFile(signature: signature) { return staged }
            }
            return try BundleUpdater.temporaryBodyFile()
        }
        let body: URL?
        let http: HTTPURLResponse
        switch outcome {
        case .answered(let response, let file):
            (http, body) = (response, file)
        case .tooLarge(let bytes):
            let limit = VerifiedBundle.maximumFileBytes
            return .rejected(BundleRejection(.tooLarge, "over \(bytes) bytes; the limit is \(limit)"))
        case .writeFailed(let failure):
            return .unavailable(reason: failure.description)
        case .failed(let reason), .refused(let reason):
            return .unavailable(reason: reason)
        }
        // Deleted unless installed below, whatever the answer: a refused or failed download leaves
        // the cache as it was. Removing it while the bundle is mapped from it (no cache directory)
        // is fine: the mapping keeps the data.
        var installed = false
        defer { if let body, !installed { try? FileManager.default.removeItem(at: body) } }
        // Unsigned (headers are never covered by the bundle's signature) and possibly injected,
        // so taken only from an answer the client keeps, and never longer than the daemon allows.
        let answeredMaxAge = http.value(forHTTPHeaderField: "Cache-Control").flatMap(Self.acceptedMaxAgeSeconds)
        switch http.statusCode {
        case 304:
            guard let currentRevision else {
                return .unavailable(reason: "304 Not Modified without a bundle to keep")
            }
            // A 304 only answers the condition this request sent (RFC 9110 §15.4.5): to a renewal,
            // which sent none, or naming another revision, it is stale or injected, and keeping
            // its max-age would put the renewal off by up to a day (finding F2).
            if renewing {
                return .unavailable(reason: "304 Not Modified to a request without If-None-Match")
            }
            if let etag = http.value(forHTTPHeaderField: "ETag"), Self.entityTag(etag) != currentRevision {
                return .unavailable(reason: "304 Not Modified for ETag \(etag), not the held revision \(currentRevision)")
            }
            keep(answeredMaxAge)
            return .notModified(revision: currentRevision)
        case 200:
            break
        case 300..<400:
            // Not followed (BundleDownload): the token is for the configured origin only (F4).
            let location = http.value(forHTTPHeaderField: "Location").map { " to \(BundleText.shown($0))" } ?? ""
            return .unavailable(
                reason: "HTTP \(http.statusCode) redirect\(location) from \(url.absoluteString) not followed: "
                    + "bundleURL must name the bundle itself")
        default:
            return .unavailable(reason: "HTTP \(http.statusCode) from \(url.absoluteString)")
        }
        let signature: [UInt8]?
        switch Self.signature(from: http) {
        case .success(let decoded): signature = decoded
        case .failure(let rejection): return .rejected(rejection)
        }
        guard let body else { return .unavailable(reason: "no body") }
        let candidate: DownloadedBundle
        switch map(body) {
        case .success(let mapped): candidate = mapped
        case .failure(let failure): return failure.outcome
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
        let published: PublishedPolicy
        if let held, held.revision == bundle.revision {
            // The revision deciding now: only a later issue of it (a renewed signature and
            // expiry) changes anything; an earlier one is a replay, refused like one.
            switch BundleRenewal.judge(bundle.stamp, held: held.stamp) {
            case .unchanged:
                // To a renewal, the same issue again did not renew: its max-age is not kept, so
                // the next renewal is asked for at the cadence already kept, not a day later
                // (attack round 9, F6), as a 304 to a renewal keeps none.
                if !renewing { keep(answeredMaxAge) }
                return .unchanged(revision: bundle.revision)
            case .refused(let rejection):
                return .rejected(rejection)
            case .renews:
                published = PublishedPolicy(held, renewedBy: bundle)
            }
        } else {
            // Replay: a validly signed bundle that is not newer than the one deciding. Refused,
            // and its max-age not kept: the answer is not one the client keeps.
            if let rejection = Self.replayRejection(bundle, current: held?.policyVersion) {
                return .rejected(rejection)
            }
            published = PublishedPolicy(bundle, source: .daemon)
        }
        let cacheWrite: RefreshOutcome.CacheWrite
        if let cache, let staged = candidate.staged {
            // Installed before it is published: the app and its extension share the directory,
            // and if the other one installed a newer bundle meanwhile this one is older than
            // what the device has (attack round 9, F5).
            let trust = configuration.trust
            do throws(BundleCacheWriteError) {
                if let newer = try cache.install(staged, unlessKeeping: { Self.keeps($0, over: bundle, trust: trust) }) {
                    return .rejected(newer)
                }
                installed = true
                cacheWrite = .written
            } catch {
                cacheWrite = .failed(error)
            }
        } else if let cache {
            cacheWrite = .failed(candidate.stagingError ?? BundleCacheWriteError(path: cache.file.path, reason: "not written"))
        } else {
            cacheWrite = .notConfigured
        }
        keep(answeredMaxAge)
        slot.publish(published)
        return .updated(revision: bundle.revision, cache: cacheWrite)
    }

    /// Why the installed cache file is kept rather than replaced by `bundle`: it verifies and
    /// `bundle` does not succeed it (another process sharing the directory installed a later
    /// bundle since this one's was read); nil when `bundle` replaces it. A file that does not
    /// verify (expired, torn, another key) is replaced, as a launch would refuse it anyway.
    private static func keeps(_ installed: BundleCache.Stored, over bundle: VerifiedBundle, trust: BundleTrust)
        -> BundleRejection?
    {
        let current: VerifiedBundle
        do throws(BundleRejection) {
            current = try installed.mapping.checkingWithBoundedResidency { () throws(BundleRejection) in
                try VerifiedBundle(inPlace: installed.bundle, signature: installed.signature, trust: trust)
            }
        } catch {
            return nil
        }
        guard
            case .refused(let rejection) = BundleSuccession.judge(
                bundle, heldRevision: current.revision, heldStamp: current.stamp)
        else { return nil }
        return BundleRejection(
            .olderVersion, "the cache file holds a later bundle, installed by another process sharing it: \(rejection.reason)")
    }

    /// A downloaded bundle mapped for its check: from its cache file staged beside the last good
    /// one (so that, once verified, a rename makes it the last good one), or from a temporary
    /// file when there is no cache directory or it cannot be written.
    private struct DownloadedBundle {
        let bundle: PolicyImageBytes
        let mapping: MappedBundleFile
        /// The staged cache file; nil when the bundle is mapped from a temporary file.
        let staged: URL?
        /// Why it could not be staged, when a cache is configured.
        let stagingError: BundleCacheWriteError?
    }

    /// The downloaded body at `body` (a staged cache file when it lies in the cache directory)
    /// mapped; an outcome to return instead when it cannot be read.
    private func map(_ body: URL) -> Result<DownloadedBundle, RefreshFailure> {
        guard let cache else { return mapTemporary(body, stagingError: nil) }
        let directory = cache.file.deletingLastPathComponent()
        guard body.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL else {
            let failure = BundleCacheWriteError(path: directory.path, reason: "a staging file cannot be created there")
            return mapTemporary(body, stagingError: failure)
        }
        do throws(BundleRejection) {
            guard let stored = try BundleCache.load(body) else {
                return .failure(RefreshFailure(.unavailable(reason: "\(body.path) vanished")))
            }
            return .success(DownloadedBundle(bundle: stored.bundle, mapping: stored.mapping, staged: body, stagingError: nil))
        } catch {
            return .failure(RefreshFailure(.unavailable(reason: error.reason)))
        }
    }

    /// A body in the temporary directory mapped (no cache, or none could be staged there).
    private func mapTemporary(_ body: URL, stagingError: BundleCacheWriteError?) -> Result<DownloadedBundle, RefreshFailure> {
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

    /// The bundle signature an answer carries (`Navpolicy-Bundle-Signature`, base64); nil when none.
    static func signature(from http: HTTPURLResponse) -> Result<[UInt8]?, BundleRejection> {
        BundleSuccession.signature(fieldValue: http.value(forHTTPHeaderField: BundleFormat.signatureField))
    }

    /// An empty file in the temporary directory for a body when there is no cache to stage it in.
    static func temporaryBodyFile() throws(BundleCacheWriteError) -> (url: URL, handle: FileHandle) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicy-download-" + UUID().uuidString)
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: url)
        else {
            throw BundleCacheWriteError(path: url.path, reason: "cannot be created")
        }
        return (url, handle)
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

    /// Runs one bundle download with the transport of this platform and configuration: on Linux
    /// the client's own over libcurl unless the app passed a `session` (corelibs URLSession
    /// cannot be held to BundleDownload's rules: CurlBundleDownload), else URLSession.
    private func download(_ request: URLRequest, into destination: @escaping BundleDownload.Destination) async
        -> BundleDownload.Outcome
    {
        let (limit, deadline) = (VerifiedBundle.maximumFileBytes, configuration.refreshTimeout)
        #if os(Linux)
            if configuration.session == nil {
                return await CurlBundleDownload.run(request, limit: limit, deadline: deadline, destination: destination)
            }
        #endif
        return await BundleDownload.run(
            request, configuration: sessionConfiguration(), limit: limit, deadline: deadline, destination: destination)
    }

    /// The configured session's configuration, else an ephemeral one without URLCache: each
    /// refresh makes its own session from it, whose delegate streams the body (BundleDownload).
    private func sessionConfiguration() -> URLSessionConfiguration {
        if let session = configuration.session { return session.configuration }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return sessionConfiguration
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

extension RefreshOutcome {
    /// An `unavailable` reason bounded as a rejection's is (``BundleText/boundedReason(_:)``): it
    /// may quote what the origin sent, such as a 304's ETag (attack round 10, F2: 90,000
    /// characters with raw ESC and BEL came back). A rejection's reason is bounded where it is made.
    var withBoundedReason: RefreshOutcome {
        guard case .unavailable(let reason) = self else { return self }
        return .unavailable(reason: BundleText.boundedReason(reason))
    }
}
