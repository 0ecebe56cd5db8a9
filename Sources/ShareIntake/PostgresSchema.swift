/// The PostgreSQL intake schema and its migrations, applied at start (and by `navpolicyd
/// intake migrate` ahead of a rollout).
///
/// The version lives in `navpolicyd_schema`; every step runs in one transaction under a
/// transaction-scoped advisory lock, so replicas that start together against an empty
/// database queue behind each other: the first creates the tables, the others find the
/// version current and do nothing.
enum PostgresSchema {
    /// The advisory lock key: an arbitrary constant no other application is likely to use
    /// ("navpolicy" in ASCII, truncated to 63 bits).
    static let lockKey: Int64 = 0x6e61_7670_6f6c_6963

    /// Each entry brings the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE intake_items (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
        CREATE TABLE intake_idempotency (
            key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            status INTEGER NOT NULL,
            location TEXT,
            body BYTEA NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX intake_idempotency_created ON intake_idempotency (created_at);
        CREATE INDEX intake_idempotency_location ON intake_idempotency (location);
        """
    ]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// What ``migrate(on:)`` did.
    struct Outcome: Equatable {
        var from: Int
        var to: Int
    }

    /// Brings the database to ``currentVersion``; refuses a database a newer build migrated,
    /// because this build would not know what its columns mean.
    static func migrate(on connection: PostgresConnection) throws(PostgresIntakeStoreError) -> Outcome {
        do {
            try connection.execute("BEGIN")
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(lockKey)])
            try connection.execute("CREATE TABLE IF NOT EXISTS navpolicyd_schema (version INTEGER NOT NULL)")
            let found = try connection.execute("SELECT max(version) FROM navpolicyd_schema").integer(0, 0) ?? 0
            guard found <= Int64(currentVersion) else {
                try connection.execute("ROLLBACK")
                throw PostgresIntakeStoreError.newerSchema(found: Int(found), supported: currentVersion)
            }
            let from = Int(found)
            for step in migrations.dropFirst(from) {
                try connection.executeScript(step)
            }
            if from < currentVersion {
                try connection.execute("DELETE FROM navpolicyd_schema")
                try connection.execute("INSERT INTO navpolicyd_schema (version) VALUES ($1)", [.integer(Int64(currentVersion))])
            }
            try connection.execute("COMMIT")
            return Outcome(from: from, to: currentVersion)
        } catch let error as PostgresIntakeStoreError {
            throw error
        } catch let error as PostgresError {
            _ = try? connection.execute("ROLLBACK")
            throw error.connectionLost ? .lost(error.description) : .database(error.description)
        } catch {
            throw .database("\(error)")
        }
    }
}

/// Why the PostgreSQL store could not open or migrate.
enum PostgresIntakeStoreError: Error, CustomStringConvertible {
    case newerSchema(found: Int, supported: Int)
    /// The server refused a statement (permissions, a timeout on the lock).
    case database(String)
    /// The connection broke during the migration (the server went away): worth retrying.
    case lost(String)

    var description: String {
        switch self {
        case .newerSchema(let found, let supported):
            "the database has intake schema version \(found), newer than this build's \(supported); "
                + "run a navpolicyd at least as new as the one that migrated it"
        case .database(let message), .lost(let message): message
        }
    }
}
