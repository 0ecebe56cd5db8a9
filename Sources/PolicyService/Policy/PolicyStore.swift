public import Foundation
public import JSONSupport
import NavigationPolicy
import Synchronization

/// Holds the active policy and swaps it on reload.
///
/// Readers take the current snapshot under a short lock (a retain, no work); a reload reads
/// and compiles the new config without any lock readers need, then swaps the reference.
/// A config that fails validation is never applied: the old snapshot keeps serving.
public final class PolicyStore: Sendable {
    /// Outcome of one reload attempt, reported by `POST /v1/policy/reload` and in logs.
    public struct ReloadOutcome: Sendable {
        public enum Result: String, Sendable {
            /// A new revision is active.
            case reloaded
            /// The file's bytes are those of the active revision; nothing changed.
            case unchanged
            /// The file could not be read or is invalid; the previous policy keeps serving.
            case failed
        }

        public var result: Result
        public var revision: String?
        public var previousRevision: String?
        public var errors: [String]
        public var trigger: String

        public var jsonObject: JSONObject {
            [
                "result": .string(result.rawValue),
                "trigger": .string(trigger),
                "revision": revision.map(JSONValue.string) ?? .null,
                "previousRevision": previousRevision.map(JSONValue.string) ?? .null,
                "errors": .array(errors.map(JSONValue.string)),
            ]
        }
    }

    /// The most recent failed reload, cleared by the next successful one or once the file on
    /// disk holds the running revision again.
    public struct ReloadFailure: Sendable {
        public var at: Date
        public var errors: [String]
        /// Tells this failure from a later one with the same time and errors.
        var generation: UInt64 = 0
    }

    /// One reload attempt and when it ended, for the status page.
    public struct ReloadRecord: Sendable {
        public var at: Date
        public var outcome: ReloadOutcome
    }

    /// How many reload attempts ``recentReloads`` keeps.
    public static let reloadHistoryLength = 5
    /// The fewest seconds between two re-reads of the file on behalf of a stale failure.
    static let failureRecheckInterval: TimeInterval = 1

    public let configPath: String
    /// Files larger than this are refused unread (``ConfigFile``).
    public let maxConfigBytes: Int
    private let current: Mutex<PolicySnapshot?>
    private let lastFailure = Mutex<ReloadFailure?>(nil)
    private let failureCount = Mutex<UInt64>(0)
    private let history = Mutex<[ReloadRecord]>([])
    /// When the file was last re-read to see whether a failure is stale.
    private let lastRecheck = Mutex<Date?>(nil)
    /// Serializes reloads (signal, file watch and HTTP may ask at once) without blocking readers;
    /// it counts the attempts. Not `Mutex<Void>`: ThreadSanitizer reports a Swift access race on
    /// the zero-sized value of the sanitizer builds' pthread lock even under the lock.
    private let reloadLock = Mutex<UInt64>(0)

    public init(configPath: String, initial: PolicySnapshot? = nil, maxConfigBytes: Int = ConfigFile.defaultMaxBytes) {
        self.configPath = configPath
        self.maxConfigBytes = maxConfigBytes
        self.current = Mutex(initial)
    }

    /// The active snapshot, or nil before any valid policy was loaded.
    public var snapshot: PolicySnapshot? { current.withLock { $0 } }

    /// The active snapshot for `GET /v1/policy/bundle`: when half its bundle's lifetime has
    /// passed (a daemon that runs for days without a reload), the bundle is issued again first,
    /// so apps fetching it never get one that is already expired. At most once per half
    /// lifetime; the policy, revision and version stay.
    public func snapshotForBundle(now: Date = Date()) -> PolicySnapshot? {
        let seconds = Int(now.timeIntervalSince1970)
        return current.withLock { snapshot in
            guard let active = snapshot, active.bundle.isDueForReissue(atUnixSeconds: seconds) else { return snapshot }
            let reissued = active.reissuingBundle(atUnixSeconds: seconds)
            snapshot = reissued
            return reissued
        }
    }

    /// The failure to report, if it still applies.
    ///
    /// A failure goes stale when the file on disk holds the running revision again (moved
    /// away and back, restored from a backup) without a reload to notice: the watcher sees
    /// the same file identity as before and does not fire, and without a watcher nothing
    /// reloads at all. So while a failure is recorded, reading it re-hashes the file (at
    /// most once a second) and clears the failure when the bytes are the running revision.
    public var lastReloadFailure: ReloadFailure? {
        guard let failure = lastFailure.withLock({ $0 }) else { return nil }
        let now = Date()
        let due = lastRecheck.withLock { last -> Bool in
            if let last, now.timeIntervalSince(last) < Self.failureRecheckInterval { return false }
            last = now
            return true
        }
        guard due, let running = snapshot?.revision,
            let bytes = try? ConfigFile.read(configPath, maxBytes: maxConfigBytes),
            PolicyBundle.revision(of: bytes) == running
        else { return failure }
        // Only the failure that was checked: one recorded meanwhile is about newer bytes.
        return lastFailure.withLock { current in
            if current?.generation == failure.generation { current = nil }
            return current
        }
    }

    /// The last few reload attempts, newest first.
    public var recentReloads: [ReloadRecord] { history.withLock { $0.reversed() } }

    /// Reads and compiles the config file and swaps it in if it is valid and new.
    public func reload(trigger: String) -> ReloadOutcome {
        let outcome = reloadLock.withLock { attempts in
            attempts &+= 1
            return attemptReload(trigger: trigger)
        }
        // Here the replaced snapshot (unless a request still holds it) and everything parsing
        // built are freed: hand that memory back, or RSS keeps the high-water mark (HeapTrim).
        if outcome.result != .unchanged { HeapTrim.releaseFreeMemory() }
        history.withLock { history in
            history.append(ReloadRecord(at: Date(), outcome: outcome))
            if history.count > Self.reloadHistoryLength { history.removeFirst(history.count - Self.reloadHistoryLength) }
        }
        return outcome
    }

    private func attemptReload(trigger: String) -> ReloadOutcome {
        let previous = snapshot
        let bytes: [UInt8]
        do throws(ConfigFile.ReadError) {
            bytes = try ConfigFile.read(configPath, maxBytes: maxConfigBytes)
        } catch {
            return fail(["\(configPath): \(error.reason)"], previous, trigger)
        }
        let revision = PolicyBundle.revision(of: bytes)
        if let previous, previous.revision == revision {
            lastFailure.withLock { $0 = nil }
            return ReloadOutcome(
                result: .unchanged, revision: revision, previousRevision: revision, errors: [], trigger: trigger)
        }
        switch PolicySnapshot.build(from: bytes, previous: previous) {
        case .failure(let error):
            return fail(error.issues.map(\.description), previous, trigger)
        case .success(let next):
            current.withLock { $0 = next }
            lastFailure.withLock { $0 = nil }
            return ReloadOutcome(
                result: .reloaded, revision: next.revision, previousRevision: previous?.revision, errors: [],
                trigger: trigger)
        }
    }

    private func fail(_ errors: [String], _ previous: PolicySnapshot?, _ trigger: String) -> ReloadOutcome {
        let generation = failureCount.withLock { count in
            count += 1
            return count
        }
        lastFailure.withLock { $0 = ReloadFailure(at: Date(), errors: errors, generation: generation) }
        return ReloadOutcome(
            result: .failed, revision: previous?.revision, previousRevision: previous?.revision, errors: errors,
            trigger: trigger)
    }
}
