import Foundation
import Synchronization

/// The single thread that writes to an intake store, committing waiting writes together; the
/// SQLite store's ``GroupCommitWriter`` and the PostgreSQL store's ``PostgresCommitWriter`` are
/// this writer over their ``CommitTransactions``.
///
/// Every write is queued; the thread takes all that are waiting (one, when group commit is
/// off), runs each in its own SAVEPOINT inside one transaction, and answers them only after
/// the COMMIT returned — so one fsync (one WAL flush) covers the whole batch, and no caller
/// hears "stored" before its data is durable. A write that fails is rolled back to its
/// savepoint alone; a failure that ends the transaction, or a failed COMMIT, fails the batch.
final class CommitWriter<Transactions: CommitTransactions>: Sendable {
    /// One queued write: `apply` runs inside the transaction and returns what to do once
    /// the batch committed; `fail` answers when the write or its batch did not commit.
    struct Job: Sendable {
        /// What the batch is sorted by when the store orders batches (``CommitTransactions/ordersBatch``).
        let order: String
        let apply: @Sendable (Transactions.Connection) throws(Transactions.Failure) -> @Sendable () -> Void
        let fail: @Sendable (IntakeFailure) -> Void
        var isProbe: Bool

        init(
            order: String = "",
            apply: @escaping @Sendable (Transactions.Connection) throws(Transactions.Failure) -> @Sendable () -> Void,
            fail: @escaping @Sendable (IntakeFailure) -> Void, isProbe: Bool = false
        ) {
            self.order = order
            self.apply = apply
            self.fail = fail
            self.isProbe = isProbe
        }
    }

    /// Jobs waiting for the writer; `isClosed` ends the writer thread once they are done.
    private struct Queue {
        var jobs: [Job] = []
        var isClosed = false
    }

    private let pending = Mutex(Queue())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let maximumBatch: Int
    /// A class, not the bare closure: a closure copied out of the generic `Mutex` on every
    /// commit went through two reabstraction thunks whose 32-byte boxes optimized builds never
    /// freed (measured with heaptrack: 64 B per commit, the rest of issue 12's intake leak).
    private final class CommitObserver: Sendable {
        let notify: @Sendable (_ batchSize: Int) -> Void
        init(_ notify: @escaping @Sendable (Int) -> Void) { self.notify = notify }
    }

    private let commitObserver = Mutex<CommitObserver?>(nil)
    private let transactions: Transactions
    /// A health probe is queued: `/readyz/intake` asks for at most one at a time.
    private let probeQueued = Atomic<Bool>(false)

    /// Starts the writer thread.
    /// - Parameters:
    ///   - groupCommit: false commits every write alone (the benchmark baseline).
    init(_ transactions: Transactions, groupCommit: Bool) {
        maximumBatch = groupCommit ? 512 : 1
        self.transactions = transactions
        let thread = Thread { [self] in
            self.run()
            self.transactions.writerEnded()
            self.finished.signal()
        }
        thread.name = transactions.threadName
        thread.start()
    }

    /// Calls `observer` after each successful COMMIT with the number of writes it held.
    func observeCommits(_ observer: @escaping @Sendable (Int) -> Void) {
        let boxed = CommitObserver(observer)
        commitObserver.withLock { $0 = boxed }
    }

    /// Queues a job; it is answered (through its closures) from the writer thread, or at once
    /// with `storageUnavailable` after ``close()``.
    func enqueue(_ job: Job) {
        let accepted = pending.withLock { queue -> Bool in
            guard !queue.isClosed else { return false }
            queue.jobs.append(job)
            return true
        }
        guard accepted else {
            job.fail(Transactions.unavailable(transactions.closedError))
            return
        }
        wakeUp.signal()
    }

    /// Queues an empty write unless one is queued: it reopens, switches files or takes the
    /// write lock like a real batch, so a fault clears (and `/readyz/intake` turns 200) without
    /// waiting for a client's write, and commits nothing.
    func probe() {
        guard probeQueued.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        enqueue(Job(apply: { _ in {} }, fail: { _ in }, isProbe: true))
    }

    /// Lets the writer thread finish the queued jobs and end; later jobs fail at once.
    func close() {
        _ = markClosed()
        wakeUp.signal()
    }

    /// ``close()``, then waits until the queued jobs were answered and the thread ended.
    func stop() {
        guard markClosed() else { return }
        wakeUp.signal()
        finished.wait()
    }

    /// Closes the queue; false when it was closed already.
    private func markClosed() -> Bool {
        pending.withLock { queue -> Bool in
            defer { queue.isClosed = true }
            return !queue.isClosed
        }
    }

    /// The store's statements' failure as a caller's answer.
    static func unavailable(_ error: Transactions.Failure) -> IntakeFailure { Transactions.unavailable(error) }

    // The loop must be able to end (``close()``), and each batch lives in its own call: an
    // optimized build treats a loop without an exit as a dead end, where it may drop the
    // releases of values created in it. That is what the soak measured: every job (its
    // closures, the submission, the caller's continuation) stayed alive, 0.4-2.6 KB per
    // intake write, in release builds only.
    private func run() {
        while commitNextBatch() {}
    }

    /// Waits for work and commits one batch; false once the writer is closed and drained.
    @inline(never)
    private func commitNextBatch() -> Bool {
        if let interval = transactions.idleInterval {
            guard wakeUp.wait(timeout: .now() + interval) == .success else {
                transactions.idle()
                return true
            }
        } else {
            wakeUp.wait()
        }
        let (batch, isClosed) = pending.withLock { queue -> ([Job], Bool) in
            let taken = Array(queue.jobs.prefix(maximumBatch))
            queue.jobs.removeFirst(taken.count)
            return (taken, queue.isClosed && queue.jobs.isEmpty)
        }
        // Several signals may cover jobs an earlier pass already took.
        if !batch.isEmpty {
            if batch.contains(where: \.isProbe) { probeQueued.store(false, ordering: .relaxed) }
            let (failure, answers) = commit(batch)
            // Health first: a caller that heard its answer must find /readyz/intake agreeing with it.
            transactions.batchEnded(failure: failure, probeOnly: batch.allSatisfy(\.isProbe))
            for answer in answers { answer() }
        }
        if isClosed { return false }
        // More jobs than one batch holds: go round again without waiting for a signal.
        if pending.withLock({ !$0.jobs.isEmpty }) { wakeUp.signal() }
        return true
    }

    /// Runs the batch in one transaction; returns the failure that failed any of it and the
    /// answers to send (every job's, after the COMMIT or the failure).
    private func commit(_ queued: [Job]) -> (Transactions.Failure?, [@Sendable () -> Void]) {
        let batch = transactions.ordersBatch ? queued.sorted { $0.order < $1.order } : queued
        let connection: Transactions.Connection
        do throws(Transactions.Failure) {
            connection = try transactions.begin()
        } catch {
            return (error, Self.failing(batch, error))
        }
        var committed: [@Sendable () -> Void] = []
        var failed: [(Job, Transactions.Failure)] = []
        var applied: [Job] = []
        for (index, job) in batch.enumerated() {
            do throws(Transactions.Failure) {
                try transactions.execute("SAVEPOINT job", on: connection)
                let completion = try job.apply(connection)
                try transactions.execute("RELEASE SAVEPOINT job", on: connection)
                committed.append(completion)
                applied.append(job)
            } catch {
                guard !transactions.transactionIsLost(after: error, on: connection) else {
                    // The writes applied so far are gone too (SQLITE_FULL, SQLITE_IOERR, a lost
                    // PostgreSQL connection): everyone in the batch hears 503.
                    return (error, Self.failing(applied + failed.map(\.0) + batch.dropFirst(index), error))
                }
                // Undo this write only; the others in the batch still commit.
                try? transactions.execute("ROLLBACK TO SAVEPOINT job", on: connection)
                try? transactions.execute("RELEASE SAVEPOINT job", on: connection)
                failed.append((job, error))
            }
        }
        do throws(Transactions.Failure) {
            try transactions.commit(connection)
        } catch {
            transactions.abandon(connection, after: error)
            return (error, Self.failing(applied + failed.map(\.0), error))
        }
        commitObserver.withLock { $0 }?.notify(applied.count)
        let refused: [@Sendable () -> Void] = failed.map { job, error in { job.fail(Transactions.unavailable(error)) } }
        return (failed.first?.1, refused + committed)
    }

    /// The answers that fail `jobs` with `error`.
    private static func failing(_ jobs: [Job], _ error: Transactions.Failure) -> [@Sendable () -> Void] {
        let failure = Transactions.unavailable(error)
        return jobs.map { job in { job.fail(failure) } }
    }
}
