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
    /// True when the client gave up waiting (the server or the network did not answer in
    /// time): the connection's state is unknown, so it is closed, and a write may or may not
    /// have committed.
    var timedOut = false

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
    fileprivate let result: OpaquePointer

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
///
/// Every call has a client-side deadline (``callTimeout``): `statement_timeout` is enforced
/// by the server, so a server that stopped answering (a frozen host, a silent partition)
/// never applies it, and a blocking libpq call would hold its thread for as long as TCP
/// retransmits (minutes). Connecting, sending and receiving therefore use libpq's
/// non-blocking API and `poll()` on its socket with a deadline; a call that runs out of time
/// marks the connection broken (what the server did with it is unknown), so it is closed and
/// never reused.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// How long one call (connect, or one statement's send and receive) may take; nil waits
    /// as long as the server takes (export and import, which set no statement timeout either).
    let callTimeout: Duration?
    /// Set when a call ran out of time: the protocol state is unknown from then on.
    private var broken = false
    /// When the current borrower must have its answer (a request's deadline): calls end by
    /// then even when ``callTimeout`` would allow more.
    var deadline: ContinuousClock.Instant?

    /// What the client adds to the server's `statement_timeout` before giving up itself, so
    /// that a server that answers reports its own timeout (keeping the connection) first.
    static let clientMargin = Duration.milliseconds(250)

    /// Connects with `uri` (a `postgresql://` URI; libpq adds the password from `PGPASSWORD`
    /// or the passfile when the URI has none) and sets `statement_timeout`, so that a stuck
    /// database answers an error instead of holding the calling thread, and makes sure
    /// `synchronous_commit` is at least `on`, so a returned COMMIT is flushed to disk.
    /// - Parameter statementTimeoutMilliseconds: the server's `statement_timeout`; the client
    ///   waits that plus ``clientMargin`` for each call (0: no limit on either side).
    /// - Parameter deadline: when connecting and the session settings must be done by (a
    ///   request's deadline); nil: one ``callTimeout`` for the connection itself.
    init(uri: String, statementTimeoutMilliseconds: Int, deadline requestDeadline: ContinuousClock.Instant? = nil)
        throws(PostgresError)
    {
        let timeout: Duration? =
            statementTimeoutMilliseconds > 0 ? .milliseconds(statementTimeoutMilliseconds) + Self.clientMargin : nil
        callTimeout = timeout
        let deadline = Self.earlier(timeout.map { ContinuousClock.now + $0 }, requestDeadline)
        // Keywords before `dbname` are defaults the URI may override (libpq expands the URI in
        // place). Keepalives notice a peer that vanished while the connection is idle in the
        // pool; `tcp_user_timeout` bounds how long sent data may stay unacknowledged.
        let userTimeout = timeout.map { String(max(1000, $0.roundedUpMilliseconds)) } ?? "10000"
        let keywords = [
            "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
            "application_name", "dbname",
        ]
        let values = ["1", "10", "5", "3", userTimeout, "navpolicyd", uri]
        let started = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectStartParams(keywordPointers, valuePointers, 1) }
        }
        guard let started else {
            throw PostgresError(sqlState: nil, message: "out of memory opening a connection", connectionLost: true)
        }
        do {
            try Self.finishConnecting(started, deadline: deadline)
        } catch {
            PQfinish(started)
            throw error
        }
        handle = started
        self.deadline = requestDeadline
        defer { self.deadline = nil }
        // Sends never block on a full socket buffer: `flush` waits for the socket with the deadline.
        PQsetnonblocking(handle, 1)
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

    /// PQconnectPoll's loop (libpq ignores `connect_timeout` there): wait for the socket in
    /// the direction libpq asks for, until the connection is up, failed, or out of time.
    private static func finishConnecting(_ connection: OpaquePointer, deadline: ContinuousClock.Instant?)
        throws(PostgresError)
    {
        guard PQstatus(connection) != CONNECTION_BAD else { throw refusal(connection) }
        // Before the first PQconnectPoll, libpq's documentation says to behave as if it asked to write.
        var state = PGRES_POLLING_WRITING
        while true {
            switch state {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_FAILED:
                throw refusal(connection)
            default:
                let events = state == PGRES_POLLING_READING ? Int16(POLLIN) : Int16(POLLOUT)
                guard SocketWait.until(deadline, socket: PQsocket(connection), events: events) else {
                    throw timeout("connecting")
                }
                state = PQconnectPoll(connection)
            }
        }
    }

    /// The error for a connection attempt libpq gave up on.
    private static func refusal(_ connection: OpaquePointer) -> PostgresError {
        let message = Self.trimmed(String(cString: PQerrorMessage(connection)))
        let needsPassword = PQconnectionNeedsPassword(connection) != 0
        return PostgresError(
            sqlState: nil, message: message, connectionLost: true, permanent: needsPassword || Self.isRefusal(message))
    }

    private static func earlier(_ first: ContinuousClock.Instant?, _ second: ContinuousClock.Instant?)
        -> ContinuousClock.Instant?
    {
        guard let first, let second else { return first ?? second }
        return min(first, second)
    }

    private static func timeout(_ step: String) -> PostgresError {
        PostgresError(
            sqlState: nil, message: "PostgreSQL did not answer in time (\(step)); the connection is closed",
            connectionLost: true, timedOut: true)
    }

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
    var isUsable: Bool { !broken && PQstatus(handle) == CONNECTION_OK }

    /// Runs several statements without parameters (a schema migration step); PQexecParams
    /// accepts only one statement at a time.
    func executeScript(_ sql: String) throws(PostgresError) {
        _ = try call { PQsendQuery(handle, sql) }
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
        return try call { PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 0) }
    }

    /// Sends with `send` and collects every result, each step bounded by one deadline; the
    /// last result is returned, the first failing one thrown.
    private func call(_ send: () -> Int32) throws(PostgresError) -> PostgresRows {
        guard !broken else {
            throw PostgresError(sqlState: nil, message: "the connection timed out before", connectionLost: true)
        }
        let deadline = Self.earlier(callTimeout.map { ContinuousClock.now + $0 }, self.deadline)
        guard send() == 1 else { throw lastError() }
        var results: [PostgresRows] = []
        try flush(until: deadline)
        while true {
            while PQisBusy(handle) != 0 {
                guard SocketWait.until(deadline, socket: PQsocket(handle), events: Int16(POLLIN)) else {
                    throw timedOut("waiting for the answer")
                }
                guard PQconsumeInput(handle) == 1 else { throw lastError() }
            }
            guard let result = PQgetResult(handle) else { break }
            results.append(PostgresRows(result))
        }
        for result in results { try check(result.result) }
        guard let last = results.last else { throw lastError() }
        return last
    }

    /// Sends what libpq buffered (non-blocking mode), reading meanwhile as its documentation asks.
    private func flush(until deadline: ContinuousClock.Instant?) throws(PostgresError) {
        while true {
            let pending = PQflush(handle)
            if pending == 0 { return }
            guard pending > 0 else { throw lastError() }
            guard SocketWait.until(deadline, socket: PQsocket(handle), events: Int16(POLLIN | POLLOUT)) else {
                throw timedOut("sending")
            }
            guard PQconsumeInput(handle) == 1 else { throw lastError() }
        }
    }

    private func timedOut(_ step: String) -> PostgresError {
        broken = true
        return Self.timeout(step)
    }

    private func lastError() -> PostgresError {
        PostgresError(sqlState: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))), connectionLost: !isUsable)
    }

    /// Throws when the result is not a success (its owner frees it).
    private func check(_ result: OpaquePointer) throws(PostgresError) {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
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
