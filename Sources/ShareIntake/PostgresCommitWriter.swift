import Foundation
import Synchronization

/// The PostgreSQL store's writer: the ``CommitWriter`` on one connection of its own.
///
/// A lost connection fails the whole batch with 503 and is replaced on the next batch (after a
/// backoff, so a down server is not hammered and callers get their 503 at once instead of
/// waiting for a connect timeout each). A batch runs sorted by its jobs' `order` (the
/// Idempotency-Key and the first URL's dedupe key): two replicas whose batches hold the same
/// keys then take their row locks in the same order instead of waiting on each other in a cycle
/// (a deadlock PostgreSQL breaks only after deadlock_timeout, failing one write).
typealias PostgresCommitWriter = CommitWriter<PostgresCommitTransactions>

extension CommitWriter where Transactions == PostgresCommitTransactions {
    /// Starts the writer thread on `connection` (nil when the server could not be reached at
    /// start); `connect` opens a replacement when it breaks (and migrates the schema first
    /// when `state` says this process has not seen it yet).
    convenience init(
        connection: PostgresConnection?, groupCommit: Bool, state: PostgresStoreState,
        connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection
    ) {
        self.init(PostgresCommitTransactions(connection: connection, state: state, connect: connect), groupCommit: groupCommit)
    }

    /// Queues `apply` and returns its answer after the COMMIT, or 503 `storage-unavailable`
    /// once `answerWithin` passed, whichever comes first.
    ///
    /// The writer is one thread: a job queued behind a batch that waits on a frozen server
    /// would otherwise wait for that batch's timeouts, then its own reconnect. The client hears
    /// 503 in time instead; the job may still commit later, which is the contract of a COMMIT
    /// whose answer was lost: a retry with the same Idempotency-Key replays the stored
    /// response (a different body is refused), and without a key the URL is found as a duplicate.
    func perform<Answer: Sendable>(
        order: String, answerWithin limit: Duration,
        _ apply: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> Result<Answer, IntakeFailure>
    ) async -> Result<Answer, IntakeFailure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, IntakeFailure>, Never>) in
            let answer = FirstAnswer(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(limit.roundedUpMilliseconds) * 1_000_000)) {
                answer.give(
                    .failure(
                        Self.unavailable(
                            PostgresError(
                                sqlState: nil, message: "PostgreSQL did not complete the write in time",
                                connectionLost: false, timedOut: true))))
            }
            enqueue(
                Job(
                    order: order,
                    apply: { connection throws(PostgresError) in
                        let result = try apply(connection)
                        return { answer.give(result) }
                    },
                    fail: { failure in answer.give(.failure(failure)) }))
        }
    }
}

/// A batch's transaction on PostgreSQL: the writer's connection, replaced (within the backoff)
/// when it broke, and the store told when the server stops or starts answering.
final class PostgresCommitTransactions: CommitTransactions {
    /// The writer thread's connection (nil while the server is unreachable); only that thread touches it.
    private final class ConnectionSlot: @unchecked Sendable {
        var connection: PostgresConnection?
        var backoff = ReconnectBackoff()
        init(_ connection: PostgresConnection?) { self.connection = connection }
    }

    private let slot: ConnectionSlot
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let state: PostgresStoreState

    init(
        connection: PostgresConnection?, state: PostgresStoreState,
        connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection
    ) {
        self.slot = ConnectionSlot(connection)
        self.state = state
        self.connect = connect
    }

    var threadName: String { "navpolicyd.intake-pg-writer" }
    var ordersBatch: Bool { true }
    var closedError: PostgresError { PostgresError(sqlState: nil, message: "the store is closed", connectionLost: true) }

    /// Started without its server: the idle writer keeps trying (within the backoff), so the
    /// store becomes ready and says so in the log without waiting for a client's write.
    var idleInterval: DispatchTimeInterval? { state.schemaReady ? nil : .milliseconds(250) }

    func idle() { _ = try? usableConnection() }

    private func usableConnection() throws(PostgresError) -> PostgresConnection {
        if let connection = slot.connection, connection.isUsable { return connection }
        slot.connection = nil
        let now = ContinuousClock.now
        // A reader or `/readyz/intake` that just reached the server ends the backoff: once the
        // store reports ready, the next write must not get 503 for the writer's old failure.
        guard slot.backoff.mayAttempt(at: now) || state.isReachable else {
            throw PostgresError(sqlState: nil, message: "reconnecting to PostgreSQL (backing off)", connectionLost: true)
        }
        do {
            let connection = try connect()
            slot.backoff.succeeded()
            slot.connection = connection
            return connection
        } catch {
            slot.backoff.failed(at: now)
            throw error
        }
    }

    /// BEGIN on a usable connection. An idle connection the server closed (a restart, an idle
    /// timeout) only shows as broken on its next statement: that BEGIN is retried once on a
    /// fresh connection, so the first batch after a restart does not fail for nothing.
    func begin() throws(PostgresError) -> PostgresConnection {
        let connection = try usableConnection()
        do {
            try connection.execute("BEGIN")
            return connection
        } catch {
            slot.connection = nil
            guard error.connectionLost else { throw error }
            state.reportUnreachable(error)
        }
        let fresh = try usableConnection()
        do {
            try fresh.execute("BEGIN")
            return fresh
        } catch {
            slot.connection = nil
            throw error
        }
    }

    func execute(_ statement: String, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(statement)
    }

    /// A lost connection: nothing of this transaction can commit any more. Any other failure
    /// (a deadlock with another replica, a timeout) is undone at the write's savepoint.
    func transactionIsLost(after error: PostgresError, on connection: PostgresConnection) -> Bool {
        guard error.connectionLost else { return false }
        slot.connection = nil
        state.reportUnreachable(error)
        return true
    }

    func commit(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("COMMIT")
    }

    /// A COMMIT whose answer was lost may have committed: the callers get 503 and retry,
    /// which an Idempotency-Key replays and the URL deduplicates; never a 201.
    func abandon(_ connection: PostgresConnection, after error: PostgresError) {
        if error.connectionLost { slot.connection = nil } else { _ = try? connection.execute("ROLLBACK") }
    }

    /// Health is `/readyz/intake`'s own round trip on PostgreSQL, not the last batch.
    func batchEnded(failure: PostgresError?, probeOnly: Bool) {}

    /// Closes the connection with the thread that owned it.
    func writerEnded() { slot.connection = nil }

    /// No detail from PostgreSQL reaches the client (RFC 9457: not a debugging tool); the
    /// cause is kept for the log.
    static func unavailable(_ error: PostgresError) -> IntakeFailure {
        var failure = IntakeFailure(
            .storageUnavailable, "the intake database cannot store the item right now; retry later",
            extensions: ["retryAfter": .number(1)])
        failure.cause = error.description
        return failure
    }
}

/// When to try connecting again after a failure: doubling from 100 ms to 2 s, so requests
/// during an outage fail at once instead of each waiting for a connect timeout.
struct ReconnectBackoff: Sendable {
    private var delay: Duration = .zero
    private var nextAttempt: ContinuousClock.Instant?

    func mayAttempt(at now: ContinuousClock.Instant) -> Bool {
        guard let nextAttempt else { return true }
        return now >= nextAttempt
    }

    mutating func failed(at now: ContinuousClock.Instant) {
        delay = delay == .zero ? .milliseconds(100) : min(delay * 2, .seconds(2))
        nextAttempt = now + delay
    }

    mutating func succeeded() {
        delay = .zero
        nextAttempt = nil
    }
}

/// A continuation resumed by whichever answer comes first (the writer or the deadline); the
/// later one is dropped.
private final class FirstAnswer<Answer: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Answer, Never>?>

    init(_ continuation: CheckedContinuation<Answer, Never>) { self.continuation = Mutex(continuation) }

    func give(_ answer: Answer) {
        continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: answer)
    }
}
