import Foundation
import Synchronization
import TestSelection
import Testing

@testable import ShareIntake

/// Issue 12's soak leak: every write through the writer thread stayed alive after its answer
/// (the job, its closures and whatever they captured: the submission, the continuation).
///
/// The leak appeared only in optimized builds, so these tests can fail only there: run them
/// with `make test-release-lifetimes` (a debug build keeps every release the optimizer dropped).
@Suite("Group-commit writer releases its jobs", .tags(.sanitizerRelevant, .optimized))
struct GroupCommitWriterLifetimeTests {
    /// Stands for what a job captures; only its lifetime matters.
    private final class Captured: Sendable {}

    /// Weak references to every job's capture, filled while the jobs are queued.
    private final class WeakCaptures: Sendable {
        private struct Entry: @unchecked Sendable { weak var value: Captured? }
        private let entries = Mutex<[Entry]>([])
        func add(_ value: Captured) { entries.withLock { $0.append(Entry(value: value)) } }
        var alive: Int { entries.withLock { entries in entries.count { $0.value != nil } } }
    }

    private static func writer(groupCommit: Bool) throws -> GroupCommitWriter {
        let path = SQLiteIntakeStoreTests.temporaryDatabase()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let database = try IntakeDatabase(path: path, busyTimeoutMilliseconds: 5000, maxDatabaseBytes: nil) {
            (connection) throws(SQLiteError) in try connection.execute("CREATE TABLE t (x INTEGER)")
        }
        return GroupCommitWriter(database: database, groupCommit: groupCommit)
    }

    /// Queues `count` jobs (committed or failing, alternately), each capturing its own object,
    /// and waits until every one was answered.
    private static func run(_ count: Int, on writer: GroupCommitWriter, captures: WeakCaptures) async {
        for index in 0..<count {
            let captured = Captured()
            captures.add(captured)
            let failing = index % 2 == 1
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                writer.enqueue(
                    GroupCommitWriter.Job(
                        apply: { db throws(SQLiteError) in
                            withExtendedLifetime(captured) {}
                            // A failing job exercises the rollback path, which must release too.
                            try db.execute(failing ? "INSERT INTO missing VALUES (1)" : "INSERT INTO t VALUES (1)")
                            return { continuation.resume() }
                        },
                        fail: { _ in
                            withExtendedLifetime(captured) {}
                            continuation.resume()
                        }))
            }
        }
    }

    /// The writer drops its batch right after answering it, on its own thread: wait (bounded)
    /// for the last references to go.
    private static func aliveAfterSettling(_ captures: WeakCaptures) async throws -> Int {
        for _ in 0..<200 where captures.alive > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        return captures.alive
    }

    @Test("each job and what it captured is released once answered", arguments: [true, false])
    func jobsAreReleased(groupCommit: Bool) async throws {
        let writer = try Self.writer(groupCommit: groupCommit)
        let captures = WeakCaptures()
        await Self.run(200, on: writer, captures: captures)
        let alive = try await Self.aliveAfterSettling(captures)
        #expect(alive == 0, "\(alive) of 200 jobs still alive after their answers")
    }

    @Test("close: queued jobs still commit, later ones fail at once as storageUnavailable")
    func closeDrainsThenRefuses() async throws {
        let writer = try Self.writer(groupCommit: true)
        let committed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            writer.enqueue(
                GroupCommitWriter.Job(
                    apply: { db throws(SQLiteError) in
                        try db.execute("INSERT INTO t VALUES (1)")
                        return { continuation.resume(returning: true) }
                    },
                    fail: { _ in continuation.resume(returning: false) }))
            writer.close()
        }
        #expect(committed)
        let refused = await withCheckedContinuation { (continuation: CheckedContinuation<IntakeFailure?, Never>) in
            writer.enqueue(
                GroupCommitWriter.Job(
                    apply: { _ throws(SQLiteError) in { continuation.resume(returning: nil) } },
                    fail: { failure in continuation.resume(returning: failure) }))
        }
        #expect(refused?.kind == .storageUnavailable)
    }

    @Test("concurrent writers: every job is released (batches of several)")
    func concurrentJobsAreReleased() async throws {
        let writer = try Self.writer(groupCommit: true)
        let captures = WeakCaptures()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await Self.run(50, on: writer, captures: captures) } }
        }
        let alive = try await Self.aliveAfterSettling(captures)
        #expect(alive == 0, "\(alive) of 400 jobs still alive after their answers")
    }
}
