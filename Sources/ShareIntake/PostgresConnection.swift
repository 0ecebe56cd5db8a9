import CPostgres
import Foundation

/// A PostgreSQL error: the SQLSTATE when the server sent one, libpq's message, and whether
/// the connection is gone (so its owner opens a new one instead of reusing it).
struct PostgresError: Error, CustomStringConvertible {
    var sqlState: String?
    var message: String
    var connectionLost: Bool
    /// True for a failure waiting will not heal (a malformed URI, a rejected password, a
    /// database a newer build migrated): start-up stops on it instead of retrying.
    var permanent = false

    var description: String {
        let code = sqlState.map { "PostgreSQL error \($0)" } ?? "PostgreSQL error"
        return "\(code): \(message)"
    }

    /// 23505: an INSERT hit a unique constraint (only seen where ON CONFLICT is not used).
    var isUniqueViolation: Bool { sqlState == "23505" }
}

/// A parameter of ``PostgresConnection/execute(_:_:)``, always sent out of the SQL text.
enum PostgresValue {
    case text(String)
    case integer(Int64)
    /// Sent in binary format, so `bytea` columns receive the bytes as they are.
    case bytes([UInt8])
    case null

    static func optionalText(_ value: String?) -> PostgresValue { value.map(PostgresValue.text) ?? .null }
}

/// The rows of one statement; values come back in text format (bytea as `\x` hex).
final class PostgresRows {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    var count: Int { Int(PQntuples(result)) }
    /// Rows the statement changed (DELETE, UPDATE, INSERT).
    var affected: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The text of a column, nil for NULL or a row/column outside the result.
    func text(_ row: Int, _ column: Int) -> String? {
        guard row >= 0, row < count, column >= 0, column < Int(PQnfields(result)) else { return nil }
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0, let value = PQgetvalue(result, Int32(row), Int32(column))
        else { return nil }
        return String(cString: value)
    }

    func integer(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }

    /// A `bytea` column: the server's hex output (`\x4142…`) decoded.
    func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard let hex = text(row, column) else { return nil }
        let digits = Array(hex.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((digits.count - 2) / 2)
        var index = 2
        while index + 1 < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// One libpq connection with the store's session settings applied on open.
///
/// libpq connections are not thread-safe: each is owned by one thread (the writer) or
/// checked out of the reader pool by one request at a time.
final class PostgresConnection {
    private let handle: OpaquePointer

    /// Connects with `uri` (a `postgresql://` URI; libpq adds the password from `PGPASSWORD`
    /// or the passfile when the URI has none) and sets `statement_timeout`, so that a stuck
    /// database answers an error instead of holding the calling thread, and makes sure
    /// `synchronous_commit` is at least `on`, so a returned COMMIT is flushed to disk.
    init(uri: String, statementTimeoutMilliseconds: Int, connectTimeoutSeconds: Int = 5) throws(PostgresError) {
        // Keywords before `dbname` are defaults the URI may override (libpq expands the URI
        // in place); `tcp_user_timeout` bounds a write to a peer that vanished from the network.
        let keywords = ["connect_timeout", "tcp_user_timeout", "application_name", "dbname"]
        let values = [String(connectTimeoutSeconds), "10000", "navpolicyd", uri]
        let opened = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let opened else {
            throw PostgresError(sqlState: nil, message: "out of memory opening a connection", connectionLost: true)
        }
        guard PQstatus(opened) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(opened)))
            let needsPassword = PQconnectionNeedsPassword(opened) != 0
            PQfinish(opened)
            throw PostgresError(
                sqlState: nil, message: message, connectionLost: true,
                permanent: needsPassword || Self.isRefusal(message))
        }
        handle = opened
        // libpq prints NOTICEs ("relation … already exists, skipping") on stderr by default,
        // which would break the daemon's one-JSON-object-per-line log.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        _ = try execute("SELECT set_config('statement_timeout', $1, false)", [.text(String(statementTimeoutMilliseconds))])
        // `off` and `local` are the only values weaker than `on` for a single server; leave
        // stronger ones (remote_write, remote_apply) the operator chose.
        let current = try execute("SHOW synchronous_commit").text(0, 0)
        if current == "off" || current == "local" { _ = try execute("SET synchronous_commit = on") }
    }

    deinit { PQfinish(handle) }

    /// Checks the URI's syntax without connecting (libpq's own parser), so a typo stops
    /// start-up at once instead of looking like a server that is down.
    static func validate(uri: String) throws(PostgresError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &errorMessage) else {
            let message = errorMessage.map { Self.trimmed(String(cString: $0)) } ?? "out of memory parsing the URI"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(
                sqlState: nil, message: "malformed connection URI: \(message)", connectionLost: true, permanent: true)
        }
        PQconninfoFree(options)
    }

    /// True when libpq rejected an option value it checks only when connecting (a port that
    /// is not a number, an unknown sslmode), or the server was reached and refused this
    /// client for a reason that waiting does not change: authentication, a missing role or
    /// database, no pg_hba.conf entry.
    /// libpq has no SQLSTATE for a failed connection, so this reads its message (English
    /// unless the daemon runs with a translated LC_MESSAGES; then such errors are retried
    /// like an outage and show in the log and on `/readyz/intake` instead of stopping start-up).
    private static func isRefusal(_ message: String) -> Bool {
        let refusals = [
            "authentication failed", "no password supplied", "does not exist", "no pg_hba.conf entry",
            "is not permitted to log in", "invalid integer value", "invalid port number", "invalid sslmode value",
            "invalid target_session_attrs value",
        ]
        return refusals.contains { message.contains($0) }
    }

    /// False once libpq saw the connection break; the owner then opens a new one.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs several statements without parameters (a schema migration step); PQexecParams
    /// accepts only one statement at a time.
    func executeScript(_ sql: String) throws(PostgresError) {
        guard let result = PQexec(handle, sql) else {
            throw PostgresError(
                sqlState: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))), connectionLost: !isUsable)
        }
        try check(result)
        PQclear(result)
    }

    /// Runs one statement with its parameters sent separately from the SQL text.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for buffer in buffers { buffer?.deallocate() } }
        for parameter in parameters {
            let bytes: [UInt8]?
            var format: Int32 = 0
            switch parameter {
            case .text(let text): bytes = Array(text.utf8)
            case .integer(let number): bytes = Array(String(number).utf8)
            case .bytes(let raw):
                bytes = raw
                format = 1
            case .null: bytes = nil
            }
            guard let bytes else {
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBufferPointer { source in
                for (offset, byte) in source.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
            }
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(clamping: bytes.count))
            formats.append(format)
        }
        let values = buffers.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 0)
        guard let result else {
            throw PostgresError(
                sqlState: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))), connectionLost: !isUsable)
        }
        try check(result)
        return PostgresRows(result)
    }

    /// Throws (and frees the result) when it is not a success.
    private func check(_ result: OpaquePointer) throws(PostgresError) {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
            PQclear(result)
            // Class 08 (connection exception) and 57P (operator intervention: the server is
            // shutting down or restarting) mean this connection will not work again.
            let lost = !isUsable || state.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
            throw PostgresError(sqlState: state, message: message, connectionLost: lost)
        }
    }

    private static func trimmed(_ message: String) -> String {
        var text = Substring(message)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }

    /// A NULL-terminated array of C strings valid for the duration of `body`.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress) }
    }
}
