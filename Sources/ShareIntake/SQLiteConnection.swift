import CSQLite

/// An SQLite error: the result code and SQLite's message.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
    /// The storage fault this error means for the intake store.
    var fault: IntakeStorageFault { IntakeStorageFault(sqliteCode: code) }
}

/// One SQLite connection with the durability settings of issue 4 applied on open.
///
/// Not thread-safe by itself (opened with `SQLITE_OPEN_NOMUTEX`): each connection is owned
/// by one thread (the writer) or used under a lock (the reader).
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens (creating if needed) `path`: WAL, `synchronous=FULL` (per connection, so on
    /// every open: a committed transaction survives power loss, not just a process crash),
    /// `busy_timeout`, foreign keys.
    /// - Parameters:
    ///   - create: false when reopening: a database that vanished must not come back empty.
    ///   - maxDatabaseBytes: `intake.maxDatabaseBytes`, split between the file and its WAL
    ///     (``SQLiteDiskBudget``; per connection, so on every open).
    init(path: String, busyTimeoutMilliseconds: Int, create: Bool = true, maxDatabaseBytes: Int? = nil)
        throws(SQLiteError)
    {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let opened { sqlite3_close_v2(opened) }
            throw SQLiteError(code: result, message: message)
        }
        handle = opened
        // SQLite quietly falls back to read-only when the file cannot be opened for writing
        // (chattr +i, a read-only mount): a store that cannot write is a fault, not a mode.
        guard sqlite3_db_readonly(handle, "main") != 1 else {
            throw SQLiteError(code: SQLITE_READONLY, message: "\(path) can only be opened read-only")
        }
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeoutMilliseconds))
        if let maxDatabaseBytes {
            let budget = SQLiteDiskBudget(maxDatabaseBytes: maxDatabaseBytes, pageSize: try pragma("page_size"))
            for pragma in budget.pragmas { try execute(pragma) }
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows needed by the caller.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw SQLiteError(code: result, message: text)
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else { throw SQLiteError(code: result, message: lastError) }
        return SQLiteStatement(statement, connection: self)
    }

    /// The rowid of the last INSERT on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// False once SQLite rolled the whole transaction back by itself (after `SQLITE_FULL`,
    /// `SQLITE_IOERR`, …): later statements would then each commit on their own.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The value of an integer pragma such as `page_count`.
    func pragma(_ name: String) throws(SQLiteError) -> Int64 {
        let statement = try prepare("PRAGMA \(name)")
        return try statement.step() ? statement.integer(0) : 0
    }
}

/// A prepared statement; binds are 1-based like SQLite's.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection

    fileprivate init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds values in order: String, Int64, Int, [UInt8] or nil.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(statement, index)
            case .integer(let number): result = sqlite3_bind_int64(statement, index, number)
            case .text(let text): result = sqlite3_bind_text(statement, index, text, -1, csqlite_transient())
            case .blob(let bytes):
                result = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), csqlite_transient())
                }
            }
            guard result == SQLITE_OK else { throw SQLiteError(code: result, message: connection.lastError) }
        }
    }

    /// Advances; true while a row is available.
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(statement)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: result, message: connection.lastError)
        }
    }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A value to bind.
enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    static func optionalText(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
}
