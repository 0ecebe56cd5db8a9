import Foundation

/// The SQLite store's writer: the ``CommitWriter`` on the database's writer connection, each
/// batch in one `BEGIN IMMEDIATE` transaction.
typealias GroupCommitWriter = CommitWriter<SQLiteCommitTransactions>

extension CommitWriter where Transactions == SQLiteCommitTransactions {
    /// Starts the writer thread on `database`'s writer connection.
    /// - Parameters:
    ///   - groupCommit: false commits every write alone (the benchmark baseline).
    convenience init(database: IntakeDatabase, groupCommit: Bool) {
        self.init(SQLiteCommitTransactions(database: database), groupCommit: groupCommit)
    }
}

/// A batch's transaction on SQLite: the connection reopened or switched to the file at the path
/// when needed (``IntakeDatabase/writerConnection()``), the commit verified to have reached that
/// file, and every batch's outcome recorded as the store's health.
struct SQLiteCommitTransactions: CommitTransactions {
    let database: IntakeDatabase

    var threadName: String { "navpolicyd.intake-writer" }
    var ordersBatch: Bool { false }
    var idleInterval: DispatchTimeInterval? { nil }
    var closedError: SQLiteError { SQLiteError(code: 21, message: "the intake writer is closed") }  // SQLITE_MISUSE

    func idle() {}

    func begin() throws(SQLiteError) -> SQLiteConnection {
        let connection = try database.writerConnection()
        try connection.execute("BEGIN IMMEDIATE")
        return connection
    }

    func execute(_ statement: String, on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.execute(statement)
    }

    /// SQLite rolls the whole transaction back by itself on some errors (SQLITE_FULL,
    /// SQLITE_IOERR): then the rest would commit one by one, outside any batch.
    func transactionIsLost(after error: SQLiteError, on connection: SQLiteConnection) -> Bool {
        !connection.isInTransaction
    }

    func commit(_ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.execute("COMMIT")
        // A commit into a file no longer at the path is not durable where readers look.
        try database.verifyAfterCommit()
    }

    func abandon(_ connection: SQLiteConnection, after error: SQLiteError) {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
    }

    func batchEnded(failure: SQLiteError?, probeOnly: Bool) {
        database.record(failure?.fault, probe: probeOnly)
    }

    func writerEnded() {}

    /// No detail from SQLite reaches the client (RFC 9457: not a debugging tool); it is logged by the store's owner.
    static func unavailable(_ error: SQLiteError) -> IntakeFailure {
        var failure = IntakeFailure(
            .storageUnavailable, "the intake database cannot be used right now; retry later",
            extensions: ["retryAfter": .number(Double(error.fault.retryAfterSeconds))])
        failure.cause = error.description
        return failure
    }
}
