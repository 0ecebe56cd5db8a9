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
    }

    /// The writer's connection, handed to the writer thread, which alone uses it afterwards.
    private final class ConnectionBox: @unchecked Sendable {
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
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

    /// Starts the writer thread on `connection`.
    /// - Parameters:
    ///   - groupCommit: false commits every write alone (the benchmark baseline).
    init(connection: SQLiteConnection, groupCommit: Bool) {
        maximumBatch = groupCommit ? 512 : 1
        let box = ConnectionBox(connection)
        let thread = Thread { [self] in self.run(box.connection) }
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

    /// Lets the writer thread finish the queued jobs and end; later jobs fail at once.
    func close() {
        pending.withLock { $0.isClosed = true }
        wakeUp.signal()
    }

    // The loop must be able to end (``close()``), and each batch lives in its own call: an
    // optimized build treats a loop without an exit as a dead end, where it may drop the
    // releases of values created in it. That is what issue 12's soak measured: every job
    // (its closures, the submission, the caller's continuation) stayed alive, 0.4-2.6 KB per
    // intake write, in release builds only.
    private func run(_ connection: SQLiteConnection) {
        while commitNextBatch(on: connection) {}
    }

    /// Waits for work and commits one batch; false once the writer is closed and drained.
    @inline(never)
    private func commitNextBatch(on connection: SQLiteConnection) -> Bool {
        wakeUp.wait()
        let (batch, isClosed) = pending.withLock { queue -> ([Job], Bool) in
            let taken = Array(queue.jobs.prefix(maximumBatch))
            queue.jobs.removeFirst(taken.count)
            return (taken, queue.isClosed && queue.jobs.isEmpty)
        }
        // Several signals may cover jobs an earlier pass already took.
        if !batch.isEmpty { commit(batch, on: connection) }
        return !isClosed
    }

    private func commit(_ batch: [Job], on connection: SQLiteConnection) {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.fail(Self.unavailable(error)) }
            return
        }
        var committed: [@Sendable () -> Void] = []
        var failed: [(Job, SQLiteError)] = []
        var applied: [Job] = []
        for job in batch {
            do {
                try connection.execute("SAVEPOINT job")
                let completion = try job.apply(connection)
                try connection.execute("RELEASE job")
                committed.append(completion)
                applied.append(job)
            } catch {
                // Undo this write only; the others in the batch still commit.
                try? connection.execute("ROLLBACK TO job")
                try? connection.execute("RELEASE job")
                failed.append((job, error))
            }
        }
        do {
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            for job in applied { job.fail(Self.unavailable(error)) }
            for (job, _) in failed { job.fail(Self.unavailable(error)) }
            return
        }
        commitObserver.withLock { $0 }?.notify(applied.count)
        for (job, error) in failed { job.fail(Self.unavailable(error)) }
        for completion in committed { completion() }
    }

    /// No detail from SQLite reaches the client (RFC 9457: not a debugging tool); it is logged by the store's owner.
    static func unavailable(_ error: SQLiteError) -> IntakeFailure {
        var failure = IntakeFailure(
            .storageUnavailable, "the intake database cannot store the item right now; retry later",
            extensions: ["retryAfter": .number(1)])
        failure.cause = error.description
        return failure
    }
}
