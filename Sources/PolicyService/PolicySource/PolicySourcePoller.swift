import Foundation
import Glibc
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient
import PolicySections
import Synchronization

/// Pulls the chain of a `policySource` daemon (docs/bundles.md, "A fleet pulls"): fetches the
/// bundle URL with `If-None-Match`, checks the bundle exactly as the app client does (the
/// client's own ``BundleCacheFile`` and ``BundleSuccession``: key id, signature, expiry, a
/// `policyVersion` above the one held), makes it the last good bundle on disk (`cacheFile`,
/// staged beside it, fsync, rename) and swaps it in through the ``PolicyStore``.
///
/// Anything that goes wrong keeps the policy held (or, before the first good one, none: the
/// daemon is not ready and decides nothing) and is reported in ``PolicySourceReport`` and the log.
/// One poll runs at a time: the timer's, a reload's (SIGHUP, `POST /v1/policy/reload`).
final class PolicySourcePoller: Sendable {
    let url: SourceURL
    private let cache: BundleCacheFile
    private let trust: BundleTrust
    private let pollIntervalSeconds: Int
    private let timeoutSeconds: Int
    /// The config file's own snapshot: its sections (`server`, `decisionLog`, ...) and settings
    /// go with every pulled chain.
    private let local: PolicySnapshot
    private let store: PolicyStore
    let report: PolicySourceReport
    private let log: EventLog
    private let fetcher: any PolicySourceFetching
    private let clock: @Sendable () -> Date

    /// The bundle deciding now, as the next poll compares with it.
    private struct Held: Sendable {
        let revision: String
        let stamp: BundleStamp?
        /// The source's `ETag` for it, sent back as `If-None-Match`; nil after a start from
        /// `cacheFile` (the first poll then asks for the whole bundle).
        var entityTag: String?
    }

    private let held = Mutex<Held?>(nil)
    /// Puts polls in a row; counts them.
    private let pollLock = Mutex<UInt64>(0)
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// Largest body taken: the client's limit for a compiled bundle file (512 MiB and its head).
    static let maximumBodyBytes = BundleCacheFile.maximumBundleBytes

    init(
        settings: PolicySourceSettings, url: SourceURL, cacheFile: String, trust: BundleTrust, local: PolicySnapshot,
        store: PolicyStore, report: PolicySourceReport, log: EventLog, fetcher: any PolicySourceFetching = CurlBundleFetcher(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.cache = BundleCacheFile(file: URL(fileURLWithPath: cacheFile))
        self.trust = trust
        self.pollIntervalSeconds = settings.pollIntervalSeconds
        self.timeoutSeconds = settings.timeoutSeconds
        self.local = local
        self.store = store
        self.report = report
        self.log = log
        self.fetcher = fetcher
        self.clock = clock
        report.update { $0.url = url.description }
    }

    // MARK: - Start from the cache

    /// Decides from the last good bundle on disk, checked again as at any fetch (a key no
    /// longer trusted, a bundle expired since, a torn file: refused, and the daemon waits for
    /// the source). Called once, before the first poll.
    func loadCacheFile() {
        cache.removeAbandonedStagingFiles()
        let checked: BundleCacheFile.Checked?
        do throws(BundleRejection) {
            checked = try cache.load(trust: trust, now: clock())
        } catch {
            let failure = PolicySourceFailure(error.kind.rawValue, "cacheFile \(cache.file.path) refused: \(error.reason)")
            report.update { state in
                state.failures[failure.reason, default: 0] += 1
                state.lastFailure = (clock(), failure)
            }
            log.log(
                .error, "policy_source.cache_refused", ["path": .string(cache.file.path), "reason": .string(error.description)])
            return
        }
        guard let checked else {
            log.log(.info, "policy_source.no_cache", ["path": .string(cache.file.path)])
            return
        }
        let started = ContinuousClock.now
        _ = adopt(checked, entityTag: nil, origin: "cacheFile", trigger: "policy-source-cache")
        report.update { $0.lastSwapSeconds = Self.seconds(since: started) }
    }

    // MARK: - Polling

    /// Starts the timer's thread: a poll now, then one every `pollIntervalSeconds` less a
    /// random tenth of it (a fleet started at once drifts apart instead of polling in step).
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                _ = poll(trigger: "policy-source")
                let interval = Double(pollIntervalSeconds)
                let wait = interval - Double.random(in: 0...(interval / 10))
                _ = wake.wait(timeout: .now() + wait)
            }
        }
        thread.name = "navpolicyd.policy-source"
        thread.start()
    }

    /// Ends the timer's thread (after the poll in flight, bounded by `timeoutSeconds`).
    func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
    }

    /// One poll, in turn with any other: what a reload with `policySource` does.
    func poll(trigger: String) -> PolicyStore.ReloadOutcome {
        pollLock.withLock { count in
            count &+= 1
            return pollOnce(trigger: trigger)
        }
    }

    private func pollOnce(trigger: String) -> PolicyStore.ReloadOutcome {
        let now = clock()
        let current = held.withLock { $0 }
        // Past half its signed lifetime the held bundle is renewed, as the app client does: a
        // 304 would never bring the publisher's re-issue with its later expiry.
        let renewing = BundleSuccession.isRenewalDue(current?.stamp, atUnixSeconds: Int(now.timeIntervalSince1970))
        let request = PolicySourceRequest(
            url: url.text, ifNoneMatch: renewing ? nil : current?.entityTag, timeoutSeconds: timeoutSeconds,
            maxBytes: Self.maximumBodyBytes)
        let cache = self.cache
        let response: PolicySourceResponse
        do throws(PolicySourceFailure) {
            response = try fetcher.fetch(request) { field throws(PolicySourceFailure) in
                let signature: [UInt8]?
                switch BundleSuccession.signature(fieldValue: field) {
                case .success(let decoded): signature = decoded
                case .failure(let rejection): throw PolicySourceFailure(rejection.kind.rawValue, rejection.reason)
                }
                do throws(BundleCacheWriteError) {
                    return try cache.createStagingFile(signature: signature)
                } catch {
                    throw PolicySourceFailure(PolicySourceFailure.cacheWrite, error.description)
                }
            }
        } catch {
            return fail(error, trigger: trigger)
        }
        switch response.status {
        // A 304 naming another entity tag than the one asked about says nothing of the held
        // bundle: refused as the app client refuses it (attack round 8, F8).
        case 304 where request.ifNoneMatch != nil && (response.entityTag == nil || response.entityTag == request.ifNoneMatch):
            report.recordPoll(result: "not-modified")
            return unchanged(trigger: trigger)
        case 200:
            break
        default:
            if let body = response.body { try? FileManager.default.removeItem(at: body) }
            let detail =
                "HTTP \(response.status) from \(url.description)"
                + (response.status != 304
                    ? ""
                    : request.ifNoneMatch == nil
                        ? " to a request without If-None-Match" : " naming another entity tag than If-None-Match")
            return fail(PolicySourceFailure(PolicySourceFailure.httpStatus, detail), trigger: trigger)
        }
        guard let staged = response.body else {
            return fail(PolicySourceFailure(PolicySourceFailure.unreachable, "a 200 without a body"), trigger: trigger)
        }
        var installed = false
        defer { if !installed { try? FileManager.default.removeItem(at: staged) } }
        let started = ContinuousClock.now
        let checked: BundleCacheFile.Checked
        do throws(BundleRejection) {
            checked = try cache.verify(staged: staged, trust: trust, now: now)
        } catch {
            return fail(PolicySourceFailure(error.kind.rawValue, error.reason), trigger: trigger)
        }
        let bundle = checked.bundle
        let succession = BundleSuccession.judge(bundle, heldRevision: current?.revision, heldStamp: current?.stamp)
        switch succession {
        case .refused(let rejection):
            return fail(PolicySourceFailure(rejection.kind.rawValue, rejection.reason), trigger: trigger)
        case .unchanged:
            held.withLock { $0?.entityTag = response.entityTag }
            report.recordPoll(result: "unchanged")
            return unchanged(trigger: trigger)
        case .replaces, .renews:
            break
        }
        var cacheFailure: PolicySourceFailure?
        do throws(BundleCacheWriteError) {
            try cache.install(staged)
            installed = true
            Self.syncDirectory(of: cache.file)
        } catch {
            cacheFailure = PolicySourceFailure(PolicySourceFailure.cacheWrite, error.description)
        }
        let outcome = adopt(checked, entityTag: response.entityTag, origin: "source", trigger: trigger)
        let swapSeconds = Self.seconds(since: started)
        report.update { $0.lastSwapSeconds = swapSeconds }
        if let cacheFailure {
            // The policy is verified and decides; only a restart without the source would miss it.
            report.recordPoll(result: "failed", failure: cacheFailure)
            log.log(.error, "policy_source.cache_write_failed", ["detail": .string(cacheFailure.detail)])
        } else {
            report.recordPoll(result: succession == .renews ? "renewed" : "updated")
        }
        return outcome
    }

    /// Makes `bundle` decide: its chain with the config file's sections, swapped in through
    /// the store; its exact bytes and signature relayed to apps and other daemons.
    private func adopt(
        _ checked: BundleCacheFile.Checked, entityTag: String?, origin: String, trigger: String
    ) -> PolicyStore.ReloadOutcome {
        let bundle = checked.bundle
        let snapshot = Self.snapshot(of: checked, local: local, at: clock())
        let outcome = store.install(snapshot, trigger: trigger)
        held.withLock { $0 = Held(revision: bundle.revision, stamp: bundle.stamp, entityTag: entityTag) }
        report.update { state in
            state.revision = bundle.revision
            state.policyVersion = bundle.stamp?.policyVersion
            state.expiresAt = bundle.stamp?.expiresAt
            state.origin = origin
        }
        var fields = outcome.jsonObject
        fields.append("origin", .string(origin))
        fields.append("policyVersion", bundle.stamp.map { .number(Double($0.policyVersion)) } ?? .null)
        log.log(.info, "policy_source.updated", fields)
        return outcome
    }

    /// The snapshot a pulled bundle decides with: its chain (and default decision), the config
    /// file's sections and settings, and the bundle relayed as received (never re-issued: this
    /// daemon has no signing key; the publisher re-issues, and the next poll renews it).
    ///
    /// The relayed bytes are the ones that verified (``BundleCacheFile/Checked/relayBytes()``),
    /// never `cacheFile` read again by path (attack round 8, F5).
    static func snapshot(of checked: BundleCacheFile.Checked, local: PolicySnapshot, at date: Date) -> PolicySnapshot {
        let bundle = checked.bundle
        let relay = checked.relayBytes()
        let pulled = bundle.policy
        let policy = CompiledPolicy(defaultVerdict: pulled.defaultVerdict, links: pulled.links, sections: local.policy.sections)
        let isCompiled = relay.withUnsafeBytes { VerifiedBundle.isCompiledBundle($0) }
        let stamp = bundle.stamp ?? BundleStamp(policyVersion: 0, issuedAt: 0, expiresAt: 0, keyId: nil)
        // `compiledImage` only marks the relay as a compiled bundle (its content type); a relayed
        // bundle is never re-issued, which is the one use of the image itself.
        let relayed = PolicyBundle(
            bytes: relay, stamp: stamp, revision: bundle.revision, policy: [:],
            signature: checked.signature, compiledImage: isCompiled ? [] : nil)
        return PolicySnapshot(
            policy: policy, revision: bundle.revision, loadedAt: date, settings: local.settings, bundle: relayed,
            relaysBundle: true)
    }

    private func unchanged(trigger: String) -> PolicyStore.ReloadOutcome {
        let revision = held.withLock { $0?.revision }
        return PolicyStore.ReloadOutcome(
            result: .unchanged, revision: revision, previousRevision: revision, errors: [], trigger: trigger)
    }

    private func fail(_ failure: PolicySourceFailure, trigger: String) -> PolicyStore.ReloadOutcome {
        report.recordPoll(result: "failed", failure: failure)
        log.log(
            .warning, "policy_source.failed",
            ["url": .string(url.description), "reason": .string(failure.reason), "detail": .string(failure.detail)])
        let revision = held.withLock { $0?.revision }
        return PolicyStore.ReloadOutcome(
            result: .failed, revision: revision, previousRevision: revision,
            errors: ["\(failure.reason): \(failure.detail)"], trigger: trigger)
    }

    /// fsync(2) of the directory: the rename that installed the cache file survives a power cut.
    private static func syncDirectory(of file: URL) {
        let descriptor = open(file.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
