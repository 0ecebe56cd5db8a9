import Foundation
public import JSONSupport
import Synchronization

/// The ``IntakeStore`` on PostgreSQL, shared by any number of daemon replicas.
///
/// Same behaviour as ``SQLiteIntakeStore``: writes go through one connection that commits
/// the waiting writes together (``PostgresCommitWriter``), reads use a small pool. What
/// SQLite gets from being the only writer, PostgreSQL gets from constraints: ids come from an
/// identity column, a URL is stored once because `dedupe_key` is unique, and an
/// Idempotency-Key is claimed by inserting its row first (`ON CONFLICT DO NOTHING`). A
/// replica whose claim meets another replica's uncommitted row waits on the unique index
/// until that transaction ends, then finds the committed record and replays it (or answers
/// 422 for other content): exactly one request per key creates items.
public final class PostgresIntakeStore: IntakeStore {
    private let writer: PostgresCommitWriter
    private let readers: PostgresReaderPool
    private let state: PostgresStoreState
    /// The connection URI with its password masked (``IntakeStore/displayLocation``).
    public let displayLocation: String
    /// On this replica a second request with a key in flight gets 409, as on SQLite (other
    /// replicas wait on the key's row and replay instead).
    private let keysInFlight = KeysInFlight()
    /// How long a request waits for the database before it is answered 503: the statement
    /// timeout plus the client's margin, the same bound every single call has.
    private let answerWithin: Duration

    /// Checks the URI, connects, creates or migrates the schema (under an advisory lock),
    /// prunes expired idempotency records, and starts the writer.
    ///
    /// A server that cannot be reached yet (down, restarting, not resolvable) does not stop
    /// the store: it opens unconnected, answers 503 `storage-unavailable` and reports
    /// `unreachable` to `/readyz/intake`, and connects and migrates on first use or when the writer
    /// retries (every 0.1–2 s), so a pod starting while the database restarts serves
    /// decisions meanwhile and intake joins by itself. What waiting will not heal throws:
    /// a malformed URI, a rejected login, a database a newer build migrated.
    /// - Parameters:
    ///   - uri: a `postgresql://` or `postgres://` URI; libpq reads a missing password from
    ///     `PGPASSWORD` or the passfile.
    ///   - poolSize: connections for reads.
    ///   - statementTimeoutMilliseconds: PostgreSQL's `statement_timeout`, so a stuck database
    ///     answers 503 instead of holding workers, and (plus a margin) the client's own deadline
    ///     for every call and every request, which holds when the server does not answer at
    ///     all; at least 100 ms.
    ///   - groupCommit: false commits every write alone (same durability; the benchmark baseline).
    public init(uri: String, poolSize: Int = 4, statementTimeoutMilliseconds: Int = 5000, groupCommit: Bool = true)
        throws(IntakeStoreError)
    {
        let redacted = DatabaseLocation.redacted(uri)
        let state = PostgresStoreState(database: redacted)
        // 0 would turn the server's statement_timeout off and leave the client no deadline:
        // a daemon's store always has one.
        let statementTimeoutMilliseconds = max(statementTimeoutMilliseconds, Self.minimumTimeoutMilliseconds)
        let connect: @Sendable (ContinuousClock.Instant?) throws(PostgresError) -> PostgresConnection = {
            deadline throws(PostgresError) in
            do throws(PostgresError) {
                let connection = try PostgresConnection(
                    uri: uri, statementTimeoutMilliseconds: statementTimeoutMilliseconds, deadline: deadline)
                if !state.schemaReady {
                    try Self.prepare(connection)
                    state.markSchemaReady()
                }
                state.reportReachable()
                return connection
            } catch {
                state.reportUnreachable(error)
                throw error
            }
        }
        var first: PostgresConnection?
        do {
            try PostgresConnection.validate(uri: uri)
            first = try connect(nil)
        } catch  where error.permanent {
            throw IntakeStoreError("cannot open the intake database \(redacted): \(error)")
        } catch {
            // Unreachable for now: the writer and the readers connect when it answers.
        }
        self.state = state
        displayLocation = redacted
        writer = PostgresCommitWriter(
            connection: first, groupCommit: groupCommit, state: state, connect: { () throws(PostgresError) in try connect(nil) })
        readers = PostgresReaderPool(size: poolSize, connect: connect)
        answerWithin = .milliseconds(statementTimeoutMilliseconds) + PostgresConnection.clientMargin
    }

    /// The shortest statement timeout (and client deadline) the daemon's store uses.
    static let minimumTimeoutMilliseconds = 100

    /// The first thing a connection does while this process has not seen the schema yet:
    /// migrate it (or refuse a newer one) and prune expired idempotency records.
    private static func prepare(_ connection: PostgresConnection) throws(PostgresError) {
        do {
            _ = try PostgresSchema.migrate(on: connection)
        } catch {
            switch error {
            case .lost(let message): throw PostgresError(sqlState: nil, message: message, connectionLost: true)
            case .newerSchema, .database:
                throw PostgresError(sqlState: nil, message: error.description, connectionLost: true, permanent: true)
            }
        }
        let cutoff = StoreTimestamp.iso8601(Date().addingTimeInterval(-SQLiteIntakeStore.idempotencyRetention))
        try connection.execute("DELETE FROM intake_idempotency WHERE created_at < $1", [.text(cutoff)])
    }

    /// Creates or migrates the schema and returns the versions before and after (for
    /// `navpolicyd intake migrate`, run ahead of a rollout).
    public static func migrate(uri: String) throws(IntakeStoreError) -> (from: Int, to: Int) {
        let redacted = DatabaseLocation.redacted(uri)
        do {
            let connection = try PostgresConnection(uri: uri, statementTimeoutMilliseconds: 60_000)
            let outcome = try PostgresSchema.migrate(on: connection)
            return (outcome.from, outcome.to)
        } catch let error as PostgresError {
            throw IntakeStoreError("cannot migrate the intake database \(redacted): \(error)")
        } catch {
            throw IntakeStoreError("cannot migrate the intake database \(redacted): \(error)")
        }
    }

    /// Ends the writer (after answering what is queued) and closes the connections.
    public func close() {
        writer.stop()
        readers.close()
    }

    /// Calls `observer` on the writer thread after each COMMIT with the writes it covered.
    public func observeCommits(_ observer: @escaping @Sendable (Int) -> Void) {
        writer.observeCommits(observer)
    }

    /// A cheap round trip (`SELECT 1`) on a read connection (which first connects and
    /// migrates when the store started without its server): nil when the database answers,
    /// else the failure `/readyz/intake` reports.
    public func healthCheck() -> IntakeFailure? {
        do {
            _ = try readers.withConnection(until: ContinuousClock.now + answerWithin) { connection throws(PostgresError) in
                try connection.execute("SELECT 1")
            }
            state.reportReachable()
            return nil
        } catch {
            if error.connectionLost { state.reportUnreachable(error) }
            return PostgresCommitWriter.unavailable(error)
        }
    }

    /// Calls `observer` with `intake.store_connected` and `intake.store_unreachable` (with the
    /// cause, the URI's password masked) each time the server starts or stops answering.
    public func observeEvents(_ observer: @escaping @Sendable (String, JSONObject) -> Void) {
        state.observe(observer)
    }

    /// What `/readyz/intake` reports: one `SELECT 1` round trip, bounded by the statement timeout.
    public func health() -> IntakeStoreHealth {
        healthCheck() == nil ? .ok : IntakeStoreHealth(fault: .unreachable)
    }

    /// Queues the write for the writer thread and returns after its batch committed (or failed).
    public func submit(_ submission: IntakeSubmission) async -> Result<IntakeStoreOutcome, IntakeFailure> {
        let key = submission.idempotency?.key
        let order = (key ?? "") + "\u{0}" + (submission.items.first?.url.deduplicationKey ?? "")
        return await keysInFlight.whileClaimed(key) {
            await writer.perform(order: order, answerWithin: answerWithin) { connection throws(PostgresError) in
                try Self.apply(submission, on: connection)
            }
        }
    }

    /// The write itself, inside the writer's transaction (and the job's savepoint): claim the
    /// key or replay, find-or-insert each URL, then store the response under the key.
    private static func apply(_ submission: IntakeSubmission, on db: PostgresConnection) throws(PostgresError)
        -> Result<IntakeStoreOutcome, IntakeFailure>
    {
        if let claim = submission.idempotency {
            // The placeholder row (status 0) is replaced below in the same transaction, so no
            // other transaction ever sees it: they wait for the COMMIT or the rollback.
            let claimed = try db.execute(
                """
                INSERT INTO intake_idempotency (key, fingerprint, status, location, body, created_at)
                VALUES ($1, $2, 0, NULL, ''::bytea, $3) ON CONFLICT (key) DO NOTHING RETURNING key
                """, [.text(claim.key), .text(claim.fingerprint), .text(submission.receivedAt)])
            if claimed.count == 0 {
                let stored = try db.execute(
                    "SELECT fingerprint, status, location, body FROM intake_idempotency WHERE key = $1", [.text(claim.key)])
                if stored.count > 0 {
                    guard claim.matches(storedFingerprint: stored.text(0, 0)) else {
                        return .failure(
                            IntakeFailure(
                                .idempotencyKeyReused,
                                "this Idempotency-Key was used for a different request; use a new key for new content"))
                    }
                    let response = StoredResponse(
                        status: Int(stored.integer(0, 1) ?? 0), location: stored.text(0, 2), body: stored.bytes(0, 3) ?? [])
                    return .success(.replayed(response))
                }
                // Deleted between the conflict and the read (an item delete forgot it): the
                // savepoint's rollback and a 503 let the client retry against the new state.
                throw PostgresError(sqlState: nil, message: "idempotency record vanished; retry", connectionLost: false)
            }
        }
        var results: [IntakeResult] = []
        for item in submission.items {
            // Look first: an INSERT that meets the unique index still takes a value from the
            // identity sequence, and duplicates should not leave gaps in the ids.
            if let existing = try find(dedupeKey: item.url.deduplicationKey, on: db) {
                results.append(IntakeResult(item: existing, duplicate: true))
                continue
            }
            let inserted = try db.execute(
                """
                INSERT INTO intake_items (dedupe_key, url, original_url, title, text, tags, source, received_at, decision, user_info)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
                """,
                [
                    .text(item.url.deduplicationKey), .text(item.url.href), .text(item.url.original),
                    .optionalText(item.title), .optionalText(item.text),
                    .text(json(.array(item.tags.map(JSONValue.string)))), .text(item.source),
                    .text(submission.receivedAt), .text(json(.object(item.decision))),
                    .optionalText(item.userInfo.map(json)),
                ])
            if let id = inserted.integer(0, 0) {
                let stored = IntakeItem(
                    id: id, url: item.url.href, originalURL: item.url.original,
                    canonicalURL: item.url.deduplicationKey, title: item.title, text: item.text,
                    tags: item.tags, source: item.source, receivedAt: submission.receivedAt, decision: item.decision,
                    userInfo: item.userInfo)
                results.append(IntakeResult(item: stored, duplicate: false))
                continue
            }
            // Another replica stored the URL and committed while this INSERT waited for it
            // on the unique index: this statement's fresh snapshot sees the row.
            guard let existing = try find(dedupeKey: item.url.deduplicationKey, on: db) else {
                throw PostgresError(sqlState: nil, message: "duplicate item vanished; retry", connectionLost: false)
            }
            results.append(IntakeResult(item: existing, duplicate: true))
        }
        let response = submission.respond(results)
        if let claim = submission.idempotency {
            try db.execute(
                "UPDATE intake_idempotency SET status = $2, location = $3, body = $4 WHERE key = $1",
                [.text(claim.key), .integer(Int64(response.status)), .optionalText(response.location), .bytes(response.body)])
        }
        return .success(.stored(response, newItems: results.count { !$0.duplicate }))
    }

    private static func find(dedupeKey: String, on db: PostgresConnection) throws(PostgresError) -> IntakeItem? {
        item(from: try db.execute("SELECT \(columns) FROM intake_items WHERE dedupe_key = $1", [.text(dedupeKey)]), row: 0)
    }

    static let columns = "id, url, original_url, title, text, tags, source, received_at, decision, user_info, dedupe_key"

    /// Reads one item on a pooled connection.
    public func item(id: Int64) throws(IntakeFailure) -> IntakeItem? {
        try read { db throws(PostgresError) in
            let rows = try db.execute("SELECT \(Self.columns) FROM intake_items WHERE id = $1", [.integer(id)])
            return Self.item(from: rows, row: 0)
        }
    }

    /// Reads a page, newest first (descending id), strictly older than `before`.
    public func list(limit: Int, before: Int64?) throws(IntakeFailure) -> [IntakeItem] {
        try read { db throws(PostgresError) in
            let rows = try db.execute(
                "SELECT \(Self.columns) FROM intake_items WHERE id < $1 ORDER BY id DESC LIMIT $2",
                [.integer(before ?? Int64.max), .integer(Int64(limit))])
            return (0..<rows.count).compactMap { Self.item(from: rows, row: $0) }
        }
    }

    /// Deletes through the writer, returning after the COMMIT.
    public func delete(id: Int64) async -> Result<Bool, IntakeFailure> {
        await writer.perform(order: "", answerWithin: answerWithin) { db throws(PostgresError) in
            let deleted = try db.execute("DELETE FROM intake_items WHERE id = $1", [.integer(id)]).affected > 0
            // Forget the keys whose stored answer points at the deleted item, as the
            // SQLite store does: replaying them would send a Location that answers 404.
            try db.execute("DELETE FROM intake_idempotency WHERE location = $1", [.text(IntakeItem.location(of: id))])
            return .success(deleted)
        }
    }

    private func read<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(IntakeFailure) -> T {
        do {
            return try readers.withConnection(until: ContinuousClock.now + answerWithin, body)
        } catch {
            throw PostgresCommitWriter.unavailable(error)
        }
    }

    static func item(from rows: PostgresRows, row: Int) -> IntakeItem? {
        guard let id = rows.integer(row, 0) else { return nil }
        let tags = parse(rows.text(row, 5))?.arrayValue?.compactMap(\.stringValue) ?? []
        return IntakeItem(
            id: id, url: rows.text(row, 1) ?? "", originalURL: rows.text(row, 2) ?? "",
            canonicalURL: rows.text(row, 10) ?? "", title: rows.text(row, 3), text: rows.text(row, 4),
            tags: tags, source: rows.text(row, 6) ?? "", receivedAt: rows.text(row, 7) ?? "",
            decision: parse(rows.text(row, 8))?.objectValue ?? [:], userInfo: rows.text(row, 9).flatMap(parse))
    }

    private static func parse(_ text: String?) -> JSONValue? {
        guard let text else { return nil }
        return try? JSONParser().parse(Array(text.utf8))
    }

    private static func json(_ value: JSONValue) -> String {
        String(decoding: value.serializedBytes, as: UTF8.self)
    }
}
