import Dispatch

/// What one store gives the ``CommitWriter``: its writer connection and the steps of a
/// transaction on it. The writer holds everything both stores share (the queue, the thread, the
/// batches, a SAVEPOINT per write, which caller hears what and when); a conformer says only how
/// its database begins, commits and gives up, and which failure ends the whole transaction.
///
/// Every member except ``unavailable(_:)`` is called on the writer thread only, one at a time:
/// a conformer may keep the connection in a plain field.
protocol CommitTransactions: Sendable {
    /// The connection the writes run on, owned by the writer thread.
    associatedtype Connection
    /// What the store's statements throw.
    associatedtype Failure: Error

    /// The writer thread's name (in a debugger or `top -H`).
    var threadName: String { get }
    /// Whether a batch runs in the jobs' ``CommitWriter/Job/order`` rather than as queued.
    var ordersBatch: Bool { get }
    /// How long the idle writer waits for work before ``idle()``; nil: until work comes.
    var idleInterval: DispatchTimeInterval? { get }
    /// What a job queued after the writer closed is failed with.
    var closedError: Failure { get }

    /// Work the idle writer does when ``idleInterval`` passed without a job.
    func idle()
    /// A connection with a transaction begun on it.
    func begin() throws(Failure) -> Connection
    /// Runs one statement that returns nothing (the savepoints).
    func execute(_ statement: String, on connection: Connection) throws(Failure)
    /// Whether `error`, thrown inside a write, ended the whole transaction (nothing of the batch
    /// can commit any more); a conformer forgets a lost connection here.
    func transactionIsLost(after error: Failure, on connection: Connection) -> Bool
    /// Commits the transaction; throws when the batch must count as not committed.
    func commit(_ connection: Connection) throws(Failure)
    /// Leaves the transaction whose ``commit(_:)`` threw.
    func abandon(_ connection: Connection, after error: Failure)
    /// How a batch ended: `failure` is the error that failed any of it (nil when all of it
    /// committed); `probeOnly` when it held only health probes. Called before any answer.
    func batchEnded(failure: Failure?, probeOnly: Bool)
    /// The writer thread is ending.
    func writerEnded()

    /// The answer a caller gets when its write did not commit: 503 `storage-unavailable`, no
    /// detail from the database (RFC 9457: not a debugging tool), the cause kept for the log.
    static func unavailable(_ error: Failure) -> IntakeFailure
}
