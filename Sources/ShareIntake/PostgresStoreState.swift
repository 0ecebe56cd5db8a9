import JSONSupport
import Synchronization

/// What the PostgreSQL store knows about its server, shared by the writer thread, the reader
/// pool and `/readyz/intake`: whether the schema has been checked (and migrated) yet, and whether the
/// server answered the last time anyone asked.
///
/// A store may start while PostgreSQL is down (a pod starting while the database restarts):
/// it then connects and migrates on first use, and reports each change between reachable and
/// unreachable once as an event (`intake.store_connected`, `intake.store_unreachable`), so the
/// log tells an operator when intake stopped and resumed without one line per failed request.
final class PostgresStoreState: Sendable {
    private struct Fields {
        var schemaReady = false
        /// nil until the first connection attempt finished.
        var reachable: Bool?
        /// The cause last logged, so a refusal that appears during an outage (the server came
        /// back with a newer schema, the password was rotated) is logged although the store
        /// was already unreachable.
        var loggedCause: String?
        var observer: (@Sendable (String, JSONObject) -> Void)?
        /// Events from before the daemon attached its log (the store opens first).
        var buffered: [(String, JSONObject)] = []
    }

    private let fields = Mutex(Fields())
    private let database: String

    /// - Parameter database: the URI with its password masked, for the events.
    init(database: String) { self.database = database }

    /// True once this process checked the schema version and migrated it if needed.
    var schemaReady: Bool { fields.withLock { $0.schemaReady } }

    func markSchemaReady() { fields.withLock { $0.schemaReady = true } }

    /// True when the last connection or statement anyone tried reached the server.
    var isReachable: Bool { fields.withLock { $0.reachable == true } }

    /// The server answered: logs `intake.store_connected` when it did not before.
    func reportReachable() {
        report(reachable: true, cause: nil, "intake.store_connected", ["database": .string(database)])
    }

    /// The server did not answer (or refused): logs `intake.store_unreachable` with the cause
    /// when it answered before, or at the first attempt.
    func reportUnreachable(_ error: PostgresError) {
        report(
            reachable: false, cause: error.permanent ? error.description : nil, "intake.store_unreachable",
            ["database": .string(database), "cause": .string(error.description)])
    }

    /// Receives the events; the ones from before are delivered first.
    func observe(_ observer: @escaping @Sendable (String, JSONObject) -> Void) {
        let earlier = fields.withLock { fields -> [(String, JSONObject)] in
            fields.observer = observer
            defer { fields.buffered = [] }
            return fields.buffered
        }
        for (event, details) in earlier { observer(event, details) }
    }

    /// - Parameter cause: set for a refusal waiting will not heal: logged when it differs
    ///   from the last one even without a change of reachability.
    private func report(reachable: Bool, cause: String?, _ event: String, _ details: JSONObject) {
        let observer = fields.withLock { fields -> (@Sendable (String, JSONObject) -> Void)? in
            let before = fields.reachable
            fields.reachable = reachable
            // Only changes are news; a start with the server up is not (the listening line names the store).
            let changed = before != reachable && (before != nil || !reachable)
            let newRefusal = cause != nil && cause != fields.loggedCause
            guard changed || newRefusal else { return nil }
            fields.loggedCause = cause
            if fields.observer == nil { fields.buffered.append((event, details)) }
            return fields.observer
        }
        observer?(event, details)
    }
}
