import Foundation
import Synchronization

/// The single thread that writes to the database, committing waiting writes together.
///
/// Every write is queued; the thread takes all that are waiting (one, when group commit is
/// off), runs each in its own SAVEPOINT inside one `BEGIN IMMEDIATE` transaction, and
/// answers them only after `COMMIT` returned — so one fsync covers the whole batch, and no
/// caller hears "stored" before its data is durable. A write that fails is rolled back to
/// its savepoint alone; a failed COMMIT fails the whole batch.
final class GroupCommitWriter: Sendable {
    /// One queued write: `apply` runs inside the transaction and returns what to do once
    /// the batch committed; `fail` answers when the write or its batch did not commit.
    struct Job: Sendable {
        let apply: @Sendable (SQLiteConnection) throws(SQLiteError) -> @Sendable () -> Void
        let fail: @Sendable (IntakeFailure) -> Void
        var isProbe = false
    }

    /// Jobs waiting for the writer; `isClosed` ends the writer thread once they are done.
    private struct Queue {
        var jobs: [Job] = []
        var isClosed = false
    }

    private let pending = Mutex(Queue())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let maximumBatch: Int
    /// A class, not the bare closure: a closure copied out of the generic `Mutex` on every
    /// commit went through two reabstraction thunks whose 32-byte boxes optimized builds never
    /// freed (measured with heaptrack: 64 B per commit, the rest of issue 12's intake leak).
    private final class CommitObserver: Sendable {
        let notify: @Sendable (_ batchSize: Int) -> Void
        init(_ notify: @escaping @Sendable (Int) -> Void) { self.notify = notify }
    }

    private let commitObserver = Mutex<CommitObserver?>(nil)

    private let database: IntakeDatabase
    /// A health probe is queued: `/readyz/intake` asks for at most one at a time.
    private let probeQueued = Atomic<Bool>(false)

    /// Starts the writer thread on `database`'s writer connection.
    /// - Parameters:
    ///   - groupCommit: false commits every write alone (the benchmark baseline).
    init(database: IntakeDatabase, groupCommit: Bool) {
        maximumBatch = groupCommit ? 512 : 1
        self.database = database
        let thread = Thread { [self] in self.run() }
        thread.name = "navpolicyd.intake-writer"
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
            job.fail(Self.unavailable(SQLiteError(code: 21, message: "the intake writer is closed")))  // SQLITE_MISUSE
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
        pending.withLock { $0.isClosed = true }
        wakeUp.signal()
    }

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
        wakeUp.wait()
        let (batch, isClosed) = pending.withLock { queue -> ([Job], Bool) in
            let taken = Array(queue.jobs.prefix(maximumBatch))
            queue.jobs.removeFirst(taken.count)
            return (taken, queue.isClosed && queue.jobs.isEmpty)
        }
        // Several signals may cover jobs an earlier pass already took.
        if !batch.isEmpty {
            if batch.contains(where: \.isProbe) { probeQueued.store(false, ordering: .relaxed) }
            let (fault, answers) = commit(batch)
            // Health first: a caller that heard its answer must find /readyz/intake agreeing with it.
            database.record(fault, probe: batch.allSatisfy(\.isProbe))
            for answer in answers { answer() }
        }
        return !isClosed
    }

    /// Runs the batch in one transaction; returns the storage fault that failed any of it
    /// and the answers to send (every job's, after the COMMIT or the failure).
    private func commit(_ batch: [Job]) -> (IntakeStorageFault?, [@Sendable () -> Void]) {
        let connection: SQLiteConnection
        do {
            connection = try database.writerConnection()
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            return (error.fault, batch.map { job in { job.fail(Self.unavailable(error)) } })
        }
        var committed: [@Sendable () -> Void] = []
        var failed: [(Job, SQLiteError)] = []
        var applied: [Job] = []
        for (index, job) in batch.enumerated() {
            do {
                try connection.execute("SAVEPOINT job")
                let completion = try job.apply(connection)
                try connection.execute("RELEASE job")
                committed.append(completion)
                applied.append(job)
            } catch {
                guard connection.isInTransaction else {
                    // SQLite rolled the whole transaction back (SQLITE_FULL, SQLITE_IOERR): the
                    // writes applied so far are gone too, and the rest would commit one by one.
                    let lost = applied + failed.map(\.0) + batch.dropFirst(index)
                    return (error.fault, lost.map { job in { job.fail(Self.unavailable(error)) } })
                }
                // Undo this write only; the others in the batch still commit.
                try? connection.execute("ROLLBACK TO job")
                try? connection.execute("RELEASE job")
                failed.append((job, error))
            }
        }
        do {
            try connection.execute("COMMIT")
            // A commit into a file no longer at the path is not durable where readers look.
            try database.verifyAfterCommit()
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            let lost = applied + failed.map(\.0)
            return (error.fault, lost.map { job in { job.fail(Self.unavailable(error)) } })
        }
        commitObserver.withLock { $0 }?.notify(applied.count)
        let refused: [@Sendable () -> Void] = failed.map { job, error in { job.fail(Self.unavailable(error)) } }
        return (failed.first?.1.fault, refused + committed)
    }

    /// No detail from SQLite reaches the client (RFC 9457: not a debugging tool); it is logged by the store's owner.
    static func unavailable(_ error: SQLiteError) -> IntakeFailure {
        var failure = IntakeFailure(
            .storageUnavailable, "the intake database cannot be used right now; retry later",
            extensions: ["retryAfter": .number(Double(error.fault.retryAfterSeconds))])
        failure.cause = error.description
        return failure
    }
}
