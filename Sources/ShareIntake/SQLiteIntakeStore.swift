public import Foundation
public import JSONSupport
import Synchronization

/// The ``IntakeStore`` on one SQLite file: WAL, `synchronous=FULL`, writes through a
/// ``GroupCommitWriter``, reads on a second connection (WAL readers never wait for the writer).
public final class SQLiteIntakeStore: IntakeStore {
    /// How long idempotency records are kept by default; older ones are pruned at start-up
    /// and then every ``pruneInterval(for:)`` by the writer.
    public static let idempotencyRetention: TimeInterval = 24 * 3600

    /// How often expired idempotency records are deleted: a 24th of the retention (an hour
    /// for the default day), so a record outlives its retention by at most that much.
    public static func pruneInterval(for retention: TimeInterval) -> TimeInterval {
        min(3600, max(0.01, retention / 24))
    }

    /// The database file, as opened (the status page shows it).
    public let path: String
    /// The file path (``IntakeStore/displayLocation``).
    public var displayLocation: String { path }
    private let writer: GroupCommitWriter
    private let database: IntakeDatabase
    /// Queues the periodic prune; cancelled when the store goes away.
    private let pruneTimer: PruneTimer
    private let keysInFlight = KeysInFlight()

    /// A dispatch timer (thread-safe, not marked `Sendable`): created once, then only cancelled.
    private final class PruneTimer: @unchecked Sendable {
        let source: any DispatchSourceTimer
        init(_ source: any DispatchSourceTimer) { self.source = source }
        deinit { source.cancel() }
    }

    /// Opens or creates the database, creating its parent directories.
    /// - Parameters:
    ///   - groupCommit: false commits every write alone (same durability; the benchmark baseline).
    ///   - maxDatabaseBytes: the most the database file may grow to (`intake.maxDatabaseBytes`);
    ///     writes beyond it fail with 503 like a full disk. Nil: no limit of its own.
    ///   - idempotencyRetention: how long an Idempotency-Key's stored answer is replayed.
    ///   - pruneInterval: how often expired records are deleted; nil = ``pruneInterval(for:)``.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5000, groupCommit: Bool = true, maxDatabaseBytes: Int? = nil,
        idempotencyRetention: TimeInterval = SQLiteIntakeStore.idempotencyRetention, pruneInterval: TimeInterval? = nil
    ) throws(IntakeStoreError) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw IntakeStoreError(
                    "cannot create the directory of the intake database \(path): \(error.localizedDescription)")
            }
        }
        do {
            database = try IntakeDatabase(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, maxDatabaseBytes: maxDatabaseBytes
            ) { (writing) throws(SQLiteError) in
                try writing.execute(Self.schema)
                try Self.pruneIdempotency(olderThan: idempotencyRetention, on: writing)
            }
            writer = GroupCommitWriter(database: database, groupCommit: groupCommit)
        } catch {
            throw IntakeStoreError("cannot open the intake database \(path): \(error)")
        }
        pruneTimer = Self.schedulePruning(
            writer: writer, retention: idempotencyRetention,
            every: pruneInterval ?? Self.pruneInterval(for: idempotencyRetention))
    }

    /// Deletes the idempotency records older than `retention`.
    private static func pruneIdempotency(olderThan retention: TimeInterval, on db: SQLiteConnection) throws(SQLiteError) {
        let cutoff = StoreTimestamp.iso8601(Date().addingTimeInterval(-retention))
        let prune = try db.prepare("DELETE FROM intake_idempotency WHERE created_at < ?")
        try prune.bind([.text(cutoff)])
        _ = try prune.step()
    }

    /// A long-running daemon would otherwise keep every key since its start. The timer only
    /// queues the DELETE; the writer runs it in a transaction of its own turn, off the
    /// request path, like any write. A failed prune is left to the next one.
    private static func schedulePruning(
        writer: GroupCommitWriter, retention: TimeInterval, every interval: TimeInterval
    ) -> PruneTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "navpolicyd.intake-prune"))
        let nanoseconds = Int(interval * 1e9)
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        timer.setEventHandler { [weak writer] in
            writer?.enqueue(
                GroupCommitWriter.Job(
                    apply: { db throws(SQLiteError) in
                        try Self.pruneIdempotency(olderThan: retention, on: db)
                        return {}
                    },
                    fail: { _ in }))
        }
        timer.resume()
        return PruneTimer(timer)
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS intake_items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            dedupe_key TEXT NOT NULL UNIQUE,
            url TEXT NOT NULL,
            original_url TEXT NOT NULL,
            title TEXT,
            text TEXT,
            tags TEXT NOT NULL,
            source TEXT NOT NULL,
            received_at TEXT NOT NULL,
            decision TEXT NOT NULL,
            user_info TEXT
        );
        CREATE TABLE IF NOT EXISTS intake_idempotency (
            key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            status INTEGER NOT NULL,
            location TEXT,
            body BLOB NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS intake_idempotency_created ON intake_idempotency(created_at);
        """

    /// Calls `observer` with each `intake.store_*` event (reopened, detached) and its fields.
    public func observeEvents(_ observer: @escaping @Sendable (String, JSONObject) -> Void) {
        database.observeEvents(observer)
    }

    /// A cheap check that never writes (see ``IntakeDatabase/health()``); when only the
    /// writer can tell whether a fault cleared, it queues one empty write to find out, so the
    /// store recovers without a client's write.
    public func health() -> IntakeStoreHealth {
        let (health, needsProbe) = database.health()
        if needsProbe { writer.probe() }
        return health
    }

    /// Calls `observer` on the writer thread after each COMMIT with the writes it covered.
    public func observeCommits(_ observer: @escaping @Sendable (Int) -> Void) {
        writer.observeCommits(observer)
    }

    /// Queues the write for the writer thread and returns after its batch committed (or failed).
    public func submit(_ submission: IntakeSubmission) async -> Result<IntakeStoreOutcome, IntakeFailure> {
        let key = submission.idempotency?.key
        return await keysInFlight.whileClaimed(key) {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<IntakeStoreOutcome, IntakeFailure>, Never>) in
                writer.enqueue(
                    GroupCommitWriter.Job(
                        apply: { connection throws(SQLiteError) in
                            let outcome = try Self.apply(submission, on: connection)
                            return { continuation.resume(returning: outcome) }
                        },
                        fail: { failure in continuation.resume(returning: .failure(failure)) }))
            }
        }
    }

    /// The write itself, inside the writer's transaction: replay or reject by key, then
    /// find-or-insert each URL, then store the response under the key.
    private static func apply(_ submission: IntakeSubmission, on db: SQLiteConnection) throws(SQLiteError)
        -> Result<IntakeStoreOutcome, IntakeFailure>
    {
        if let claim = submission.idempotency {
            let lookup = try db.prepare("SELECT fingerprint, status, location, body FROM intake_idempotency WHERE key = ?")
            try lookup.bind([.text(claim.key)])
            if try lookup.step() {
                guard claim.matches(storedFingerprint: lookup.text(0)) else {
                    return .failure(
                        IntakeFailure(
                            .idempotencyKeyReused,
                            "this Idempotency-Key was used for a different request; use a new key for new content"))
                }
                return .success(
                    .replayed(
                        StoredResponse(status: Int(lookup.integer(1)), location: lookup.text(2), body: lookup.blob(3))))
            }
        }
        var results: [IntakeResult] = []
        for item in submission.items {
            if let existing = try find(dedupeKey: item.url.deduplicationKey, on: db) {
                results.append(IntakeResult(item: existing, duplicate: true))
                continue
            }
            let insert = try db.prepare(
                """
                INSERT INTO intake_items (dedupe_key, url, original_url, title, text, tags, source, received_at, decision, user_info)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            try insert.bind([
                .text(item.url.deduplicationKey), .text(item.url.href), .text(item.url.original), .optionalText(item.title),
                .optionalText(item.text), .text(json(.array(item.tags.map(JSONValue.string)))), .text(item.source),
                .text(submission.receivedAt), .text(json(.object(item.decision))), .optionalText(item.userInfo.map(json)),
            ])
            _ = try insert.step()
            let stored = IntakeItem(
                id: db.lastInsertRowID, url: item.url.href, originalURL: item.url.original,
                canonicalURL: item.url.deduplicationKey, title: item.title, text: item.text,
                tags: item.tags, source: item.source, receivedAt: submission.receivedAt, decision: item.decision,
                userInfo: item.userInfo)
            results.append(IntakeResult(item: stored, duplicate: false))
        }
        let response = submission.respond(results)
        if let claim = submission.idempotency {
            let record = try db.prepare(
                "INSERT INTO intake_idempotency (key, fingerprint, status, location, body, created_at) VALUES (?, ?, ?, ?, ?, ?)")
            try record.bind([
                .text(claim.key), .text(claim.fingerprint), .integer(Int64(response.status)),
                .optionalText(response.location), .blob(response.body), .text(submission.receivedAt),
            ])
            _ = try record.step()
        }
        return .success(.stored(response, newItems: results.count { !$0.duplicate }))
    }

    private static let columns =
        "id, url, original_url, title, text, tags, source, received_at, decision, user_info, dedupe_key"

    private static func find(dedupeKey: String, on db: SQLiteConnection) throws(SQLiteError) -> IntakeItem? {
        let query = try db.prepare("SELECT \(columns) FROM intake_items WHERE dedupe_key = ?")
        try query.bind([.text(dedupeKey)])
        return try query.step() ? item(from: query) : nil
    }

    /// Reads one item on the reader connection.
    public func item(id: Int64) throws(IntakeFailure) -> IntakeItem? {
        try read { db throws(SQLiteError) in
            let query = try db.prepare("SELECT \(Self.columns) FROM intake_items WHERE id = ?")
            try query.bind([.integer(id)])
            return try query.step() ? Self.item(from: query) : nil
        }
    }

    /// Reads a page, newest first (descending id), strictly older than `before`.
    public func list(limit: Int, before: Int64?) throws(IntakeFailure) -> [IntakeItem] {
        try read { db throws(SQLiteError) in
            let query = try db.prepare("SELECT \(Self.columns) FROM intake_items WHERE id < ? ORDER BY id DESC LIMIT ?")
            try query.bind([.integer(before ?? Int64.max), .integer(Int64(limit))])
            var items: [IntakeItem] = []
            while try query.step() { items.append(Self.item(from: query)) }
            return items
        }
    }

    /// Deletes through the writer, returning after the COMMIT.
    public func delete(id: Int64) async -> Result<Bool, IntakeFailure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, IntakeFailure>, Never>) in
            writer.enqueue(
                GroupCommitWriter.Job(
                    apply: { db throws(SQLiteError) in
                        let statement = try db.prepare("DELETE FROM intake_items WHERE id = ?")
                        try statement.bind([.integer(id)])
                        _ = try statement.step()
                        let deleted = db.changes > 0
                        // Forget the Idempotency-Keys whose stored answer points at the deleted
                        // item: replaying them would send a Location that answers 404. A retry
                        // with such a key is processed afresh, in the same transaction's view.
                        let forget = try db.prepare("DELETE FROM intake_idempotency WHERE location = ?")
                        try forget.bind([.text(IntakeItem.location(of: id))])
                        _ = try forget.step()
                        return { continuation.resume(returning: .success(deleted)) }
                    },
                    fail: { failure in continuation.resume(returning: .failure(failure)) }))
        }
    }

    private func read<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(IntakeFailure) -> T {
        do throws(SQLiteError) {
            return try database.read(body)
        } catch {
            // The writer alone can switch files or reopen; let it look now rather than at the next write.
            if error.fault.needsReopen { writer.probe() }
            throw GroupCommitWriter.unavailable(error)
        }
    }

    private static func item(from row: SQLiteStatement) -> IntakeItem {
        let tags = parse(row.text(5))?.arrayValue?.compactMap(\.stringValue) ?? []
        return IntakeItem(
            id: row.integer(0), url: row.text(1) ?? "", originalURL: row.text(2) ?? "",
            canonicalURL: row.text(10) ?? "", title: row.text(3), text: row.text(4),
            tags: tags, source: row.text(6) ?? "", receivedAt: row.text(7) ?? "",
            decision: parse(row.text(8))?.objectValue ?? [:], userInfo: row.text(9).flatMap(parse))
    }

    private static func parse(_ text: String?) -> JSONValue? {
        guard let text else { return nil }
        return try? JSONParser().parse(Array(text.utf8))
    }

    private static func json(_ value: JSONValue) -> String {
        String(decoding: value.serializedBytes, as: UTF8.self)
    }
}

/// The store could not be opened (start-up error, reported with the path).
public struct IntakeStoreError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the path.
    public var description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}

/// The timestamps the store compares (`created_at`), in the API's RFC 3339 UTC form with milliseconds.
enum StoreTimestamp {
    static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }
}
