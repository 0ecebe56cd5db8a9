import Foundation
import Synchronization
import TestSelection
import Testing

@testable import ShareIntake

/// The one writer both intake stores commit through, over a store whose statements are only
/// logged and whose failures each test chooses: which statements a batch runs, and who hears
/// what, in which order, when a write fails alone, when the transaction is lost and when the
/// COMMIT fails. The stores' own suites (SQLite here, both in `IntakeStoreContractTests`) hold
/// the same rules against real databases.
@Suite("Commit writer: batches, savepoints and answers", .tags(.sanitizerRelevant))
struct CommitWriterTests {
    /// Logs every step; the first `begin` waits at a gate, so a test can queue a whole batch
    /// behind it before the writer takes one.
    final class ScriptedTransactions: CommitTransactions {
        struct Failure: Error {
            var name: String
            var losesTransaction = false
        }
        final class Connection {}

        let ordersBatch: Bool
        let commitFails: Bool
        let firstBeginEntered = DispatchSemaphore(value: 0)
        let firstBeginGate = DispatchSemaphore(value: 0)
        private let begins = Atomic<Int>(0)
        private let entries = Mutex<[String]>([])

        init(ordersBatch: Bool = false, commitFails: Bool = false) {
            self.ordersBatch = ordersBatch
            self.commitFails = commitFails
        }

        var threadName: String { "navpolicyd.test-commit-writer" }
        var idleInterval: DispatchTimeInterval? { nil }
        var closedError: Failure { Failure(name: "closed") }

        func record(_ entry: String) { entries.withLock { $0.append(entry) } }
        var log: [String] { entries.withLock { $0 } }

        func idle() {}

        func begin() throws(Failure) -> Connection {
            if begins.add(1, ordering: .relaxed).newValue == 1 {
                firstBeginEntered.signal()
                firstBeginGate.wait()
            }
            record("BEGIN")
            return Connection()
        }

        func execute(_ statement: String, on connection: Connection) throws(Failure) { record(statement) }

        func transactionIsLost(after error: Failure, on connection: Connection) -> Bool { error.losesTransaction }

        func commit(_ connection: Connection) throws(Failure) {
            record("COMMIT")
            if commitFails { throw Failure(name: "commit") }
        }

        func abandon(_ connection: Connection, after error: Failure) { record("ROLLBACK") }

        func batchEnded(failure: Failure?, probeOnly: Bool) {
            record("ended \(failure?.name ?? "ok")" + (probeOnly ? " probe" : ""))
        }

        func writerEnded() { record("writer ended") }

        static func unavailable(_ error: Failure) -> IntakeFailure {
            var failure = IntakeFailure(.storageUnavailable, "unavailable")
            failure.cause = error.name
            return failure
        }
    }

    typealias Writer = CommitWriter<ScriptedTransactions>

    /// A write named `name` that logs itself, fails with `failure` when given, and logs its answer.
    private static func job(
        _ name: String, order: String = "", failing failure: ScriptedTransactions.Failure? = nil,
        _ store: ScriptedTransactions, _ answered: DispatchGroup
    ) -> Writer.Job {
        answered.enter()
        return Writer.Job(
            order: order,
            apply: { _ throws(ScriptedTransactions.Failure) in
                store.record("write \(name)")
                if let failure { throw failure }
                return {
                    store.record("stored \(name)")
                    answered.leave()
                }
            },
            fail: { answer in
                store.record("failed \(name): \(answer.kind == .storageUnavailable ? answer.cause ?? "" : "wrong kind")")
                answered.leave()
            })
    }

    /// Starts a writer on `store`, queues `A` and, while `A` waits at BEGIN, lets `meanwhile`
    /// queue more (they form the next batch); returns the stopped writer once every write queued
    /// through `answered` was answered.
    @discardableResult
    private static func run(
        _ store: ScriptedTransactions, meanwhile: (Writer, DispatchGroup) -> Void = { _, _ in }
    ) -> Writer {
        let writer = Writer(store, groupCommit: true)
        writer.observeCommits { store.record("observed \($0)") }
        let answered = DispatchGroup()
        writer.enqueue(job("A", store, answered))
        store.firstBeginEntered.wait()
        meanwhile(writer, answered)
        store.firstBeginGate.signal()
        // A bound so a broken writer fails the test instead of hanging it; not a timing assertion.
        #expect(answered.wait(timeout: .now() + 60) == .success)
        writer.stop()
        return writer
    }

    /// Commits `A` alone, then `jobs` as one batch; returns the log from the second batch on.
    private static func secondBatch(
        _ store: ScriptedTransactions, _ jobs: [(name: String, order: String, failure: ScriptedTransactions.Failure?)]
    ) throws -> [String] {
        run(store) { writer, answered in
            for (name, order, failure) in jobs { writer.enqueue(job(name, order: order, failing: failure, store, answered)) }
        }
        let log = store.log
        let first = [
            "BEGIN", "SAVEPOINT job", "write A", "RELEASE SAVEPOINT job", "COMMIT", "observed 1", "ended ok", "stored A",
        ]
        try #require(Array(log.prefix(first.count)) == first)
        return Array(log.dropFirst(first.count))
    }

    @Test("a failing write is undone at its savepoint alone; the rest commit and hear after the COMMIT")
    func failingWriteAlone() throws {
        let store = ScriptedTransactions()
        let log = try Self.secondBatch(store, [("B", "", nil), ("C", "", .init(name: "C")), ("D", "", nil)])
        #expect(
            log == [
                "BEGIN",
                "SAVEPOINT job", "write B", "RELEASE SAVEPOINT job",
                "SAVEPOINT job", "write C", "ROLLBACK TO SAVEPOINT job", "RELEASE SAVEPOINT job",
                "SAVEPOINT job", "write D", "RELEASE SAVEPOINT job",
                "COMMIT", "observed 2", "ended C", "failed C: C", "stored B", "stored D", "writer ended",
            ])
    }

    @Test("a failure that loses the transaction fails every write of the batch, before and after it")
    func lostTransactionFailsBatch() throws {
        let store = ScriptedTransactions()
        let log = try Self.secondBatch(
            store, [("B", "", nil), ("C", "", .init(name: "C", losesTransaction: true)), ("D", "", nil)])
        #expect(
            log == [
                "BEGIN", "SAVEPOINT job", "write B", "RELEASE SAVEPOINT job", "SAVEPOINT job", "write C",
                "ended C", "failed B: C", "failed C: C", "failed D: C", "writer ended",
            ])
    }

    @Test("a failed COMMIT fails the whole batch: nobody hears stored")
    func failedCommitFailsBatch() throws {
        let store = ScriptedTransactions(commitFails: true)
        Self.run(store) { writer, answered in writer.enqueue(Self.job("B", failing: .init(name: "B"), store, answered)) }
        let log = store.log
        #expect(!log.contains { $0.hasPrefix("stored") })
        #expect(log.contains("failed A: commit"))
        #expect(log.contains("failed B: commit"))
        #expect(log.last == "writer ended")
        if let commit = log.firstIndex(of: "COMMIT") {
            #expect(Array(log[commit...].prefix(3)) == ["COMMIT", "ROLLBACK", "ended commit"])
        } else {
            Issue.record("no COMMIT in \(log)")
        }
    }

    @Test("a store that orders its batches gets them sorted by the jobs' order; one that does not, as queued")
    func batchOrder() throws {
        let sorted = try Self.secondBatch(
            ScriptedTransactions(ordersBatch: true), [("Z", "z", nil), ("M", "m", nil), ("N", "n", nil)])
        #expect(sorted.filter { $0.hasPrefix("write ") } == ["write M", "write N", "write Z"])
        let queued = try Self.secondBatch(ScriptedTransactions(), [("Z", "z", nil), ("M", "m", nil), ("N", "n", nil)])
        #expect(queued.filter { $0.hasPrefix("write ") } == ["write Z", "write M", "write N"])
    }

    @Test("probes: at most one queued, committed empty, reported as a probe-only batch")
    func probes() {
        let store = ScriptedTransactions()
        Self.run(store) { writer, _ in
            writer.probe()
            writer.probe()
        }
        let log = store.log
        #expect(log.filter { $0 == "ended ok probe" }.count == 1)
        #expect(log.filter { $0 == "BEGIN" }.count == 2)
    }

    @Test("after close, a job fails at once with the store's closed error; stop waits for the thread's end")
    func closeThenRefuse() {
        let store = ScriptedTransactions()
        let writer = Self.run(store)
        #expect(store.log.last == "writer ended")
        writer.enqueue(Self.job("late", store, DispatchGroup()))
        #expect(store.log.last == "failed late: closed")
    }
}
