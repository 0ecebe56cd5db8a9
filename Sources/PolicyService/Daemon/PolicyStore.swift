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

    /// The most recent failed reload, cleared by the next successful one.
    public struct ReloadFailure: Sendable {
        public var at: Date
        public var errors: [String]
    }

    public let configPath: String
    /// Files larger than this are refused unread (``ConfigFile``).
    public let maxConfigBytes: Int
    private let current: Mutex<PolicySnapshot?>
    private let lastFailure = Mutex<ReloadFailure?>(nil)
    /// Serializes reloads (signal, file watch and HTTP may ask at once) without blocking readers.
    private let reloadLock = Mutex<Void>(())

    public init(configPath: String, initial: PolicySnapshot? = nil, maxConfigBytes: Int = ConfigFile.defaultMaxBytes) {
        self.configPath = configPath
        self.maxConfigBytes = maxConfigBytes
        self.current = Mutex(initial)
    }

    /// The active snapshot, or nil before any valid policy was loaded.
    public var snapshot: PolicySnapshot? { current.withLock { $0 } }

    public var lastReloadFailure: ReloadFailure? { lastFailure.withLock { $0 } }

    /// Reads and compiles the config file and swaps it in if it is valid and new.
    public func reload(trigger: String) -> ReloadOutcome {
        let outcome = reloadLock.withLock { _ in attemptReload(trigger: trigger) }
        // Here the replaced snapshot (unless a request still holds it) and everything parsing
        // built are freed: hand that memory back, or RSS keeps the high-water mark (HeapTrim).
        if outcome.result != .unchanged { HeapTrim.releaseFreeMemory() }
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
        let revision = "sha256:" + SHA256.hexDigest(bytes)
        if let previous, previous.revision == revision {
            lastFailure.withLock { $0 = nil }
            return ReloadOutcome(
                result: .unchanged, revision: revision, previousRevision: revision, errors: [], trigger: trigger)
        }
        switch PolicySnapshot.build(from: bytes) {
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
        lastFailure.withLock { $0 = ReloadFailure(at: Date(), errors: errors) }
        return ReloadOutcome(
            result: .failed, revision: previous?.revision, previousRevision: previous?.revision, errors: errors,
            trigger: trigger)
    }
}
