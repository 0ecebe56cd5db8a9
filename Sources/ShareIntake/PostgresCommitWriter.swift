import Foundation
import Synchronization

/// The single thread that writes to PostgreSQL, committing waiting writes together.
///
/// The same shape as ``GroupCommitWriter`` (SQLite): the thread takes every write that is
/// waiting (one, when group commit is off), runs each in its own SAVEPOINT inside one
/// transaction and answers them only after `COMMIT` returned, so one WAL flush covers the
/// batch and nobody hears "stored" before the data is durable. A write that fails is rolled
/// back to its savepoint alone. A lost connection fails the whole batch with 503 and is
/// replaced on the next batch (after a backoff, so a down server is not hammered and
/// callers get their 503 at once instead of waiting for a connect timeout each).
final class PostgresCommitWriter: Sendable {
    /// One queued write: `apply` runs inside the transaction and returns what to do once the
    /// batch committed; `fail` answers when the write or its batch did not commit.
    struct Job: Sendable {
        /// What the batch is sorted by before it runs: the Idempotency-Key and the first
        /// URL's dedupe key. Two replicas whose batches hold the same keys then take their
        /// row locks in the same order instead of waiting on each other in a cycle (a
        /// deadlock PostgreSQL breaks only after deadlock_timeout, failing one write).
        let order: String
        let apply: @Sendable (PostgresConnection) throws(PostgresError) -> @Sendable () -> Void
        let fail: @Sendable (IntakeFailure) -> Void
    }

    /// The writer thread's connection (nil while the server is unreachable); only that thread touches it.
    private final class ConnectionSlot: @unchecked Sendable {
        var connection: PostgresConnection?
        var backoff = ReconnectBackoff()
        init(_ connection: PostgresConnection?) { self.connection = connection }
    }

    private let pending = Mutex<(jobs: [Job], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)
    private let maximumBatch: Int
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let commitObserver = Mutex<(@Sendable (_ batchSize: Int) -> Void)?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let state: PostgresStoreState

    /// Starts the writer thread on `connection` (nil when the server could not be reached at
    /// start); `connect` opens a replacement when it breaks (and migrates the schema first
    /// when `state` says this process has not seen it yet).
    init(
        connection: PostgresConnection?, groupCommit: Bool, state: PostgresStoreState,
        connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection
    ) {
        maximumBatch = groupCommit ? 512 : 1
        self.connect = connect
        self.state = state
        let slot = ConnectionSlot(connection)
        let thread = Thread { [self] in
            self.run(slot)
            slot.connection = nil
            self.finished.signal()
        }
        thread.name = "navpolicyd.intake-pg-writer"
        thread.start()
    }

    /// Calls `observer` after each successful COMMIT with the number of writes it held.
    func observeCommits(_ observer: @escaping @Sendable (Int) -> Void) {
        commitObserver.withLock { $0 = observer }
    }

    /// Queues a job; it is answered (through its closures) from the writer thread, or at
    /// once with 503 when the writer was stopped.
    func enqueue(_ job: Job) {
        let accepted = pending.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.jobs.append(job)
            return true
        }
        guard accepted else {
            job.fail(Self.unavailable(PostgresError(sqlState: nil, message: "the store is closed", connectionLost: true)))
            return
        }
        wakeUp.signal()
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

    /// Answers what is queued, ends the thread and closes its connection.
    func stop() {
        let wasRunning = pending.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard wasRunning else { return }
        wakeUp.signal()
        finished.wait()
    }

    private func run(_ slot: ConnectionSlot) {
        while true {
            if state.schemaReady {
                wakeUp.wait()
            } else if wakeUp.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
                // Started without its server: keep trying (within the backoff) so the store
                // becomes ready and says so in the log without waiting for a client's write.
                _ = try? usableConnection(slot)
                continue
            }
            let (batch, stopped) = pending.withLock { state -> ([Job], Bool) in
                let taken = Array(state.jobs.prefix(maximumBatch))
                state.jobs.removeFirst(taken.count)
                return (taken, state.stopped && state.jobs.isEmpty)
            }
            if !batch.isEmpty { commit(batch, slot: slot) }
            if stopped { return }
            // More jobs than one batch holds: go round again without waiting for a signal.
            if pending.withLock({ !$0.jobs.isEmpty }) { wakeUp.signal() }
        }
    }

    private func usableConnection(_ slot: ConnectionSlot) throws(PostgresError) -> PostgresConnection {
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
    private func begin(_ slot: ConnectionSlot) throws(PostgresError) -> PostgresConnection {
        let connection = try usableConnection(slot)
        do {
            try connection.execute("BEGIN")
            return connection
        } catch {
            slot.connection = nil
            guard error.connectionLost else { throw error }
            state.reportUnreachable(error)
        }
        let fresh = try usableConnection(slot)
        do {
            try fresh.execute("BEGIN")
            return fresh
        } catch {
            slot.connection = nil
            throw error
        }
    }

    private func commit(_ queued: [Job], slot: ConnectionSlot) {
        let batch = queued.sorted { $0.order < $1.order }
        let connection: PostgresConnection
        do {
            connection = try begin(slot)
        } catch {
            for job in batch { job.fail(Self.unavailable(error)) }
            return
        }
        var committed: [@Sendable () -> Void] = []
        var failed: [(Job, PostgresError)] = []
        var applied: [Job] = []
        for (index, job) in batch.enumerated() {
            do {
                try connection.execute("SAVEPOINT job")
                let completion = try job.apply(connection)
                try connection.execute("RELEASE SAVEPOINT job")
                committed.append(completion)
                applied.append(job)
            } catch {
                if error.connectionLost {
                    // Nothing of this transaction can commit any more: everyone gets 503.
                    slot.connection = nil
                    state.reportUnreachable(error)
                    for job in applied { job.fail(Self.unavailable(error)) }
                    for (job, _) in failed { job.fail(Self.unavailable(error)) }
                    for job in batch[index...] { job.fail(Self.unavailable(error)) }
                    return
                }
                // Undo this write only (a deadlock with another replica, a timeout); the
                // others in the batch still commit.
                _ = try? connection.execute("ROLLBACK TO SAVEPOINT job")
                _ = try? connection.execute("RELEASE SAVEPOINT job")
                failed.append((job, error))
            }
        }
        do {
            try connection.execute("COMMIT")
        } catch {
            // A COMMIT whose answer was lost may have committed: the callers get 503 and
            // retry, which an Idempotency-Key replays and the URL deduplicates; never a 201.
            if error.connectionLost { slot.connection = nil } else { _ = try? connection.execute("ROLLBACK") }
            for job in applied { job.fail(Self.unavailable(error)) }
            for (job, _) in failed { job.fail(Self.unavailable(error)) }
            return
        }
        commitObserver.withLock { $0 }?(applied.count)
        for (job, error) in failed { job.fail(Self.unavailable(error)) }
        for completion in committed { completion() }
    }

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
