public import Foundation
public import JSONSupport
import NavigationPolicy
import Synchronization

/// Holds the active policy and swaps it on reload.
///
/// Readers take the current snapshot under a short lock (a retain, no work); a reload reads
/// and compiles the new config without any lock readers need, then swaps the reference.
/// A config that fails validation is never applied: the old snapshot keeps serving.
///
/// Two locks, each with one job: everything the store knows (``State``) is one value behind one
/// `Mutex`, so what a reader sees is always one consistent moment (a new snapshot and the
/// cleared failure together), and `reloadLock` only puts reloads in a row. Nothing slow runs
/// under the state lock: reading, hashing and compiling the file happen between its turns.
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

    /// What the store knows; only ever read or changed whole, under ``state``.
    private struct State {
        /// The active snapshot, nil before any valid policy was loaded.
        var snapshot: PolicySnapshot?
        /// See ``PolicyStore/lastReloadFailure``.
        var lastFailure: ReloadFailure?
        /// How many reloads failed: each failure's ``ReloadFailure/generation``.
        var failureCount: UInt64 = 0
        /// The last ``PolicyStore/reloadHistoryLength`` attempts, oldest first.
        var history: [ReloadRecord] = []
        /// When the file was last re-read to see whether a failure is stale.
        var lastRecheck: Date?
    }

    private let state: Mutex<State>
    /// Serializes reloads (signal, file watch and HTTP may ask at once) without blocking readers;
    /// it counts the attempts. Not `Mutex<Void>`: ThreadSanitizer reports a Swift access race on
    /// the zero-sized value of the sanitizer builds' pthread lock even under the lock.
    private let reloadLock = Mutex<UInt64>(0)

    /// Where reloads go instead of the config file: a `policySource` daemon's chain comes from
    /// the pulled bundle, so a reload polls the source at once (``PolicySourcePoller``). Set
    /// once, at start.
    private let reloadDelegate = Mutex<(@Sendable (String) -> ReloadOutcome)?>(nil)

    public init(configPath: String, initial: PolicySnapshot? = nil, maxConfigBytes: Int = ConfigFile.defaultMaxBytes) {
        self.configPath = configPath
        self.maxConfigBytes = maxConfigBytes
        self.state = Mutex(State(snapshot: initial))
    }

    /// The active snapshot, or nil before any valid policy was loaded.
    public var snapshot: PolicySnapshot? { state.withLock { $0.snapshot } }

    /// The active snapshot for `GET /v1/policy/bundle`: when half its bundle's lifetime has
    /// passed (a daemon that runs for days without a reload), the bundle is issued again first,
    /// so apps fetching it never get one that is already expired. At most once per half
    /// lifetime; the policy, revision and version stay.
    public func snapshotForBundle(now: Date = Date()) -> PolicySnapshot? {
        let seconds = Int(now.timeIntervalSince1970)
        return state.withLock { state in
            guard let active = state.snapshot, !active.relaysBundle, active.bundle.isDueForReissue(atUnixSeconds: seconds)
            else {
                return state.snapshot
            }
            let reissued = active.reissuingBundle(atUnixSeconds: seconds)
            state.snapshot = reissued
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
        let now = Date()
        let (failure, runningToCheck) = state.withLock { state -> (ReloadFailure?, String?) in
            guard let failure = state.lastFailure else { return (nil, nil) }
            if let last = state.lastRecheck, now.timeIntervalSince(last) < Self.failureRecheckInterval {
                return (failure, nil)
            }
            state.lastRecheck = now
            return (failure, state.snapshot?.revision)
        }
        // The file is read and hashed outside the lock: decisions take the snapshot under it.
        guard let failure, let running = runningToCheck,
            let bytes = try? ConfigFile.read(configPath, maxBytes: maxConfigBytes),
            PolicyBundle.revision(of: bytes) == running
        else { return failure }
        // Only the failure that was checked: one recorded meanwhile is about newer bytes.
        return state.withLock { state in
            if state.lastFailure?.generation == failure.generation { state.lastFailure = nil }
            return state.lastFailure
        }
    }

    /// The last few reload attempts, newest first.
    public var recentReloads: [ReloadRecord] { state.withLock { $0.history.reversed() } }

    /// Sends every later ``reload(trigger:)`` to `reload` instead of the config file.
    func delegateReloads(to reload: @escaping @Sendable (String) -> ReloadOutcome) {
        reloadDelegate.withLock { $0 = reload }
    }

    /// Whether a reload polls `policySource` instead of reading the config file again.
    var pullsFromSource: Bool { reloadDelegate.withLock { $0 != nil } }

    /// Swaps in `next`, built elsewhere (a pulled bundle's chain with this file's sections), in
    /// turn with reloads; recorded in the reload history under `trigger`.
    func install(_ next: PolicySnapshot, trigger: String) -> ReloadOutcome {
        let outcome = reloadLock.withLock { attempts in
            attempts &+= 1
            let previous = state.withLock { state in
                defer {
                    state.snapshot = next
                    state.lastFailure = nil
                }
                return state.snapshot
            }
            return ReloadOutcome(
                result: .reloaded, revision: next.revision, previousRevision: previous?.revision, errors: [],
                trigger: trigger)
        }
        HeapTrim.releaseFreeMemory()
        record(outcome)
        return outcome
    }

    /// Reads and compiles the config file and swaps it in if it is valid and new.
    public func reload(trigger: String) -> ReloadOutcome {
        if let delegate = reloadDelegate.withLock({ $0 }) { return delegate(trigger) }
        let outcome = reloadLock.withLock { attempts in
            attempts &+= 1
            return attemptReload(trigger: trigger)
        }
        // Here the replaced snapshot (unless a request still holds it) and everything parsing
        // built are freed: hand that memory back, or RSS keeps the high-water mark (HeapTrim).
        if outcome.result != .unchanged { HeapTrim.releaseFreeMemory() }
        record(outcome)
        return outcome
    }

    private func record(_ outcome: ReloadOutcome) {
        let record = ReloadRecord(at: Date(), outcome: outcome)
        state.withLock { state in
            state.history.append(record)
            if state.history.count > Self.reloadHistoryLength {
                state.history.removeFirst(state.history.count - Self.reloadHistoryLength)
            }
        }
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
            state.withLock { $0.lastFailure = nil }
            return ReloadOutcome(
                result: .unchanged, revision: revision, previousRevision: revision, errors: [], trigger: trigger)
        }
        switch PolicySnapshot.build(from: bytes, previous: previous) {
        case .failure(let error):
            return fail(error.issues.map(\.description), previous, trigger)
        case .success(let next):
            state.withLock { state in
                state.snapshot = next
                state.lastFailure = nil
            }
            return ReloadOutcome(
                result: .reloaded, revision: next.revision, previousRevision: previous?.revision, errors: [],
                trigger: trigger)
        }
    }

    private func fail(_ errors: [String], _ previous: PolicySnapshot?, _ trigger: String) -> ReloadOutcome {
        let at = Date()
        state.withLock { state in
            state.failureCount += 1
            state.lastFailure = ReloadFailure(at: at, errors: errors, generation: state.failureCount)
        }
        return ReloadOutcome(
            result: .failed, revision: previous?.revision, previousRevision: previous?.revision, errors: errors,
            trigger: trigger)
    }
}
