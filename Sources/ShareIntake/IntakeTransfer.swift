import Foundation
import JSONSupport

/// Moves an intake store between databases as NDJSON (`navpolicyd intake export/import`),
/// typically an SQLite file to PostgreSQL when a deployment grows to several replicas.
///
/// One line per row, raw columns, so nothing is lost or re-encoded: items keep their ids
/// (clients hold `Location`s) and their JSON columns byte for byte; idempotency records keep
/// their stored response (body in base64), so a client retrying across the move still gets
/// its replay. Import goes into an empty store only, in one transaction: a half-imported or
/// merged store is worse than a refusal.
public enum IntakeTransfer {
    /// Rows written or read.
    public struct Counts: Sendable, Equatable {
        /// Items.
        public var items = 0
        /// Idempotency records.
        public var keys = 0
    }

    static let itemColumns = [
        "id", "dedupe_key", "url", "original_url", "title", "text", "tags", "source", "received_at", "decision", "user_info",
    ]
    static let itemFields = [
        "id", "dedupeKey", "url", "originalUrl", "title", "text", "tags", "source", "receivedAt", "decision", "userInfo",
    ]
    static let keyColumns = ["key", "fingerprint", "status", "location", "body", "created_at"]
    static let keyFields = ["key", "fingerprint", "status", "location", "body", "createdAt"]

    /// Writes every item (by id) and idempotency record of the store at `location` as NDJSON lines.
    public static func export(from location: DatabaseLocation, write: (String) -> Void) throws(IntakeStoreError) -> Counts {
        var counts = Counts()
        let select = [
            "SELECT \(itemColumns.joined(separator: ", ")) FROM intake_items ORDER BY id",
            "SELECT \(keyColumns.joined(separator: ", ")) FROM intake_idempotency ORDER BY created_at, key",
        ]
        switch location {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else { throw IntakeStoreError("no intake database at \(path)") }
            do {
                let db = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000)
                let items = try db.prepare(select[0])
                while try items.step() {
                    write(line("item", itemFields, (0..<11).map { items.text(Int32($0)) }))
                    counts.items += 1
                }
                let keys = try db.prepare(select[1])
                while try keys.step() {
                    let body = keys.blob(4)
                    let values = [
                        keys.text(0), keys.text(1), keys.text(2), keys.text(3), Data(body).base64EncodedString(), keys.text(5),
                    ]
                    write(line("idempotency", keyFields, values))
                    counts.keys += 1
                }
            } catch {
                throw IntakeStoreError("cannot export \(path): \(error)")
            }
        case .postgres(let uri):
            do {
                let db = try PostgresConnection(uri: uri, statementTimeoutMilliseconds: 0)
                try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                let items = try db.execute(select[0])
                for row in 0..<items.count {
                    write(line("item", itemFields, (0..<11).map { items.text(row, $0) }))
                    counts.items += 1
                }
                let keys = try db.execute(select[1])
                for row in 0..<keys.count {
                    let body = Data(keys.bytes(row, 4) ?? []).base64EncodedString()
                    let values = [
                        keys.text(row, 0), keys.text(row, 1), keys.text(row, 2), keys.text(row, 3), body, keys.text(row, 5),
                    ]
                    write(line("idempotency", keyFields, values))
                    counts.keys += 1
                }
                try db.execute("COMMIT")
            } catch {
                throw IntakeStoreError("cannot export \(location): \(error)")
            }
        }
        return counts
    }

    /// Reads NDJSON lines into the empty store at `location` (created or migrated first), in one transaction.
    public static func importLines(_ lines: [String], into location: DatabaseLocation) throws(IntakeStoreError) -> Counts {
        var items: [[String?]] = []
        var keys: [[String?]] = []
        for (offset, text) in lines.enumerated() where !text.allSatisfy(\.isWhitespace) {
            let number = offset + 1
            guard let object = try? JSONParser().parse(Array(text.utf8)).objectValue else {
                throw IntakeStoreError("line \(number): expected one JSON object")
            }
            switch object["type"]?.stringValue {
            case "item": items.append(try fields(object, itemFields, required: [0, 1, 2, 3, 6, 7, 8, 9], line: number))
            case "idempotency": keys.append(try fields(object, keyFields, required: [0, 1, 2, 4, 5], line: number))
            default: throw IntakeStoreError("line \(number): /type must be \"item\" or \"idempotency\"")
            }
        }
        for (index, key) in keys.enumerated() {
            guard let status = key[2], Int64(status) != nil else {
                throw IntakeStoreError("idempotency record \(index + 1): /status is not an integer")
            }
            guard let body = key[4], Data(base64Encoded: body) != nil else {
                throw IntakeStoreError("idempotency record \(index + 1): /body is not base64")
            }
        }
        for (index, item) in items.enumerated() where item[0].flatMap({ Int64($0) }) == nil {
            throw IntakeStoreError("item \(index + 1): /id is not an integer")
        }
        switch location {
        case .sqlite(let path): try importSQLite(items: items, keys: keys, path: path)
        case .postgres(let uri): try importPostgres(items: items, keys: keys, uri: uri, location: location)
        }
        return Counts(items: items.count, keys: keys.count)
    }

    private static func importPostgres(items: [[String?]], keys: [[String?]], uri: String, location: DatabaseLocation)
        throws(IntakeStoreError)
    {
        do {
            let db = try PostgresConnection(uri: uri, statementTimeoutMilliseconds: 0)
            _ = try PostgresSchema.migrate(on: db)
            try db.execute("BEGIN")
            try db.execute("LOCK TABLE intake_items, intake_idempotency IN EXCLUSIVE MODE")
            let existing = try db.execute(
                "SELECT (SELECT count(*) FROM intake_items) + (SELECT count(*) FROM intake_idempotency)")
            guard existing.integer(0, 0) == 0 else {
                try db.execute("ROLLBACK")
                throw IntakeStoreError("the target store \(location) is not empty; import only into an empty store")
            }
            let itemPlaceholders = (1...itemColumns.count).map { "$\($0)" }.joined(separator: ", ")
            for item in items {
                try db.execute(
                    "INSERT INTO intake_items (\(itemColumns.joined(separator: ", "))) OVERRIDING SYSTEM VALUE VALUES (\(itemPlaceholders))",
                    item.map(PostgresValue.optionalText))
            }
            for key in keys {
                let body = key[4].flatMap { Data(base64Encoded: $0) }.map { Array($0) } ?? []
                try db.execute(
                    "INSERT INTO intake_idempotency (key, fingerprint, status, location, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        .optionalText(key[0]), .optionalText(key[1]), .optionalText(key[2]), .optionalText(key[3]), .bytes(body),
                        .optionalText(key[5]),
                    ])
            }
            // The identity continues after the highest imported id, so no id is ever reused.
            try db.execute(
                "SELECT setval(pg_get_serial_sequence('intake_items', 'id'), GREATEST((SELECT max(id) FROM intake_items), 1), (SELECT count(*) > 0 FROM intake_items))"
            )
            try db.execute("COMMIT")
        } catch let error as IntakeStoreError {
            throw error
        } catch {
            throw IntakeStoreError("cannot import into \(location): \(error)")
        }
    }

    private static func importSQLite(items: [[String?]], keys: [[String?]], path: String) throws(IntakeStoreError) {
        try IntakeDataDirectory.prepare(databasePath: path)
        do {
            let db = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000)
            try db.execute(SQLiteIntakeStore.schema)
            try db.execute("BEGIN IMMEDIATE")
            let existing = try db.prepare(
                "SELECT (SELECT count(*) FROM intake_items) + (SELECT count(*) FROM intake_idempotency)")
            guard try existing.step(), existing.integer(0) == 0 else {
                try db.execute("ROLLBACK")
                throw IntakeStoreError("the target store \(path) is not empty; import only into an empty store")
            }
            for item in items {
                let insert = try db.prepare(
                    "INSERT INTO intake_items (\(itemColumns.joined(separator: ", "))) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                try insert.bind([.integer(item[0].flatMap { Int64($0) } ?? 0)] + item.dropFirst().map(SQLiteValue.optionalText))
                _ = try insert.step()
            }
            for key in keys {
                let insert = try db.prepare(
                    "INSERT INTO intake_idempotency (key, fingerprint, status, location, body, created_at) VALUES (?, ?, ?, ?, ?, ?)"
                )
                let body = key[4].flatMap { Data(base64Encoded: $0) }.map { Array($0) } ?? []
                try insert.bind([
                    .optionalText(key[0]), .optionalText(key[1]), .integer(key[2].flatMap { Int64($0) } ?? 0),
                    .optionalText(key[3]),
                    .blob(body), .optionalText(key[5]),
                ])
                _ = try insert.step()
            }
            try db.execute("COMMIT")
        } catch let error as IntakeStoreError {
            throw error
        } catch {
            throw IntakeStoreError("cannot import into \(path): \(error)")
        }
    }

    private static func line(_ type: String, _ names: [String], _ values: [String?]) -> String {
        var object: JSONObject = ["type": .string(type)]
        for (name, value) in zip(names, values) { object.append(name, value.map(JSONValue.string) ?? .null) }
        return String(decoding: JSONValue.object(object).serializedBytes, as: UTF8.self)
    }

    /// The named string members in order; `required` ones must be present and not null.
    private static func fields(_ object: JSONObject, _ names: [String], required: Set<Int>, line: Int) throws(IntakeStoreError)
        -> [String?]
    {
        var values: [String?] = []
        for (index, name) in names.enumerated() {
            switch object[name] {
            case .string(let text)?: values.append(text)
            case .null?, nil:
                guard !required.contains(index) else { throw IntakeStoreError("line \(line): /\(name) is required") }
                values.append(nil)
            default: throw IntakeStoreError("line \(line): /\(name) must be a string or null")
            }
        }
        return values
    }
}
