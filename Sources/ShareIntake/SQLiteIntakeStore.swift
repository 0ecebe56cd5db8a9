public import Foundation
import JSONSupport
import Synchronization

/// The ``IntakeStore`` on one SQLite file: WAL, `synchronous=FULL`, writes through a
/// ``GroupCommitWriter``, reads on a second connection (WAL readers never wait for the writer).
public final class SQLiteIntakeStore: IntakeStore {
    /// How long idempotency records are kept; older ones are pruned at start-up.
    public static let idempotencyRetention: TimeInterval = 24 * 3600

    /// The database file, as opened (the status page shows it).
    public let path: String
    private let writer: GroupCommitWriter
    private let reader: Mutex<ReaderBox>
    /// Keys whose first request has not committed yet: a second request with one gets 409.
    private let keysInFlight = Mutex<Set<String>>([])

    private final class ReaderBox: @unchecked Sendable {
        // Used only under the `reader` mutex.
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
    }

    /// Opens or creates the database, creating its parent directories.
    /// - Parameter groupCommit: false commits every write alone (same durability; the benchmark baseline).
    public init(path: String, busyTimeoutMilliseconds: Int = 5000, groupCommit: Bool = true) throws(IntakeStoreError) {
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
            let writing = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            try writing.execute(Self.schema)
            let cutoff = StoreTimestamp.iso8601(Date().addingTimeInterval(-Self.idempotencyRetention))
            let prune = try writing.prepare("DELETE FROM intake_idempotency WHERE created_at < ?")
            try prune.bind([.text(cutoff)])
            _ = try prune.step()
            let reading = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            reader = Mutex(ReaderBox(reading))
            writer = GroupCommitWriter(connection: writing, groupCommit: groupCommit)
        } catch {
            throw IntakeStoreError("cannot open the intake database \(path): \(error)")
        }
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

    /// Calls `observer` on the writer thread after each COMMIT with the writes it covered.
    public func observeCommits(_ observer: @escaping @Sendable (Int) -> Void) {
        writer.observeCommits(observer)
    }

    /// Queues the write for the writer thread and returns after its batch committed (or failed).
    public func submit(_ submission: IntakeSubmission) async -> Result<IntakeStoreOutcome, IntakeFailure> {
        let key = submission.idempotency?.key
        if let key {
            let claimed = keysInFlight.withLock { $0.insert(key).inserted }
            guard claimed else {
                return .failure(
                    IntakeFailure(
                        .idempotencyInFlight, "a request with this Idempotency-Key is still being stored; retry shortly",
                        extensions: ["retryAfter": .number(1)]))
            }
        }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<IntakeStoreOutcome, IntakeFailure>, Never>) in
            writer.enqueue(
                GroupCommitWriter.Job(
                    apply: { connection throws(SQLiteError) in
                        let outcome = try Self.apply(submission, on: connection)
                        return { continuation.resume(returning: outcome) }
                    },
                    fail: { failure in continuation.resume(returning: .failure(failure)) }))
        }
        if let key { _ = keysInFlight.withLock { $0.remove(key) } }
        return result
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
                guard lookup.text(0) == claim.fingerprint else {
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
        let result: Result<T, SQLiteError> = reader.withLock { box in
            do throws(SQLiteError) {
                return .success(try body(box.connection))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw GroupCommitWriter.unavailable(error)
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
