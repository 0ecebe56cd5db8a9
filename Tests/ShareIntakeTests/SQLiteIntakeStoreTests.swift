import Foundation
import JSONSupport
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

@testable import ShareIntake

@Suite("SQLite intake store", .tags(.sanitizerRelevant))
struct SQLiteIntakeStoreTests {
    static func temporaryDatabase() -> String {
        TestScratch.root + "/intake-tests-\(UUID().uuidString)/nested/intake.sqlite3"
    }

    static func submission(
        _ url: String, key: String? = nil, fingerprint: String = "f", text: String? = nil, receivedAt: Date = Date()
    ) throws -> IntakeSubmission {
        let item = NewIntakeItem(
            url: try WebURL(validating: url), title: "t", text: text, tags: ["a"], source: "json",
            decision: ["decision": .string("allow")], userInfo: nil)
        return IntakeSubmission(
            items: [item], receivedAt: StoreTimestamp.iso8601(receivedAt),
            idempotency: key.map { IdempotencyClaim(key: $0, fingerprint: fingerprint) },
            respond: { results in
                let first = results.first
                return StoredResponse(
                    status: first?.duplicate == true ? 200 : 201, location: first?.item.location,
                    body: Array("\(first?.item.id ?? 0)".utf8))
            })
    }

    @Test("stores, finds duplicates on the URL without fragment, lists newest first with a cursor, deletes")
    func roundTrip() async throws {
        let store = try SQLiteIntakeStore(path: Self.temporaryDatabase())
        let first = await store.submit(try Self.submission("https://a.example/x#one"))
        #expect(
            first == .success(.stored(StoredResponse(status: 201, location: "/v1/intake/1", body: Array("1".utf8)), newItems: 1)))
        let duplicate = await store.submit(try Self.submission("HTTPS://A.EXAMPLE/x#two"))
        #expect(
            duplicate
                == .success(.stored(StoredResponse(status: 200, location: "/v1/intake/1", body: Array("1".utf8)), newItems: 0)))
        _ = await store.submit(try Self.submission("https://b.example/"))
        _ = await store.submit(try Self.submission("https://c.example/"))
        let item = try #require(try store.item(id: 1))
        #expect(item.url == "https://a.example/x#one")
        #expect(item.canonicalURL == "https://a.example/x")
        #expect(item.tags == ["a"])
        #expect(item.decision["decision"] == .string("allow"))
        #expect(try store.list(limit: 2, before: nil).map(\.id) == [3, 2])
        #expect(try store.list(limit: 2, before: 2).map(\.id) == [1])
        #expect(await store.delete(id: 2) == .success(true))
        #expect(await store.delete(id: 2) == .success(false))
        #expect(try store.item(id: 2) == nil)
    }

    @Test("Idempotency-Key: same content replays, other content is refused, and both survive a reopen")
    func idempotency() async throws {
        let path = Self.temporaryDatabase()
        do {
            let store = try SQLiteIntakeStore(path: path)
            let stored = await store.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
            guard case .success(.stored(let response, _)) = stored else {
                Issue.record("not stored: \(stored)")
                return
            }
            #expect(
                await store.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
                    == .success(.replayed(response)))
        }
        let reopened = try SQLiteIntakeStore(path: path)
        let replay = await reopened.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
        #expect(replay == .success(.replayed(StoredResponse(status: 201, location: "/v1/intake/1", body: Array("1".utf8)))))
        let reused = await reopened.submit(try Self.submission("https://b.example/", key: "k", fingerprint: "B"))
        #expect((try? reused.get()) == nil)
        if case .failure(let failure) = reused { #expect(failure.kind == .idempotencyKeyReused) }
        #expect(try reopened.list(limit: 10, before: nil).count == 1)
    }

    @Test("expired Idempotency-Keys are pruned while the store runs, not only when it opens")
    func periodicPruning() async throws {
        let path = Self.temporaryDatabase()
        let store = try SQLiteIntakeStore(path: path, idempotencyRetention: 3600, pruneInterval: 0.05)
        // Stored after the open (so the start-up prune cannot be what removes it), already two
        // hours old: only a prune while the store runs deletes it. The fresh one must stay.
        let expired = await store.submit(
            try Self.submission("https://a.example/", key: "old", fingerprint: "A", receivedAt: Date() - 7200))
        let fresh = await store.submit(try Self.submission("https://c.example/", key: "new", fingerprint: "C"))
        for outcome in [expired, fresh] {
            guard case .success(.stored) = outcome else {
                Issue.record("not stored: \(outcome)")
                return
            }
        }
        let counter = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        func keys() throws -> [String] {
            let query = try counter.prepare("SELECT key FROM intake_idempotency ORDER BY key")
            var keys: [String] = []
            while try query.step() { keys.append(query.text(0) ?? "") }
            return keys
        }
        // Bounded wait: a prune runs every 0.05 s.
        let deadline = Date().addingTimeInterval(10)
        while try keys().contains("old"), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try keys() == ["new"], "the expired record is still there, or the fresh one went too")
        // The expired key is free again: other content under it is stored, not refused...
        let reused = await store.submit(try Self.submission("https://b.example/", key: "old", fingerprint: "B"))
        guard case .success(.stored(let response, let newItems)) = reused else {
            Issue.record("not stored afresh: \(reused)")
            return
        }
        #expect(response.status == 201 && newItems == 1)
        // ...while the fresh key still guards its content.
        let refused = await store.submit(try Self.submission("https://d.example/", key: "new", fingerprint: "D"))
        if case .failure(let failure) = refused {
            #expect(failure.kind == .idempotencyKeyReused)
        } else {
            Issue.record("the fresh key was not held: \(refused)")
        }
    }

    @Test("group commit: concurrent writers share commits and every one is answered with its own item")
    func groupCommit() async throws {
        let store = try SQLiteIntakeStore(path: Self.temporaryDatabase())
        let commits = CommitCounter()
        store.observeCommits { writes in commits.add(writes) }
        let submissions = try (0..<64).map { try Self.submission("https://g.example/\($0)") }
        let results = await withTaskGroup(of: Result<IntakeStoreOutcome, IntakeFailure>.self) { group in
            for submission in submissions {
                group.addTask { await store.submit(submission) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { if case .success(.stored(let r, _)) = $0 { r.status == 201 } else { false } })
        #expect(Set(results.compactMap { try? $0.get() }.map { "\($0)" }).count == 64)
        #expect(try store.list(limit: 100, before: nil).count == 64)
        #expect(commits.writes == 64)
        #expect(commits.commits < 64, "64 concurrent writes should share commits, got \(commits.commits)")
    }

    @Test("a key still in flight answers idempotency-in-flight")
    func inFlight() async throws {
        let store = try SQLiteIntakeStore(path: Self.temporaryDatabase())
        var sawConflict = false
        for round in 0..<20 where !sawConflict {
            let submission = try Self.submission("https://f.example/\(round)", key: "key-\(round)")
            async let first = store.submit(submission)
            async let second = store.submit(submission)
            let outcomes = await [first, second]
            for case .failure(let failure) in outcomes {
                #expect(failure.kind == .idempotencyInFlight)
                sawConflict = true
            }
        }
        #expect(sawConflict)
    }

    @Test("a full database (maxDatabaseBytes) in group commits: refused writes left nothing, acknowledged ones are all kept")
    func fullDatabase() async throws {
        let store = try SQLiteIntakeStore(path: Self.temporaryDatabase(), maxDatabaseBytes: 65536)
        #expect(store.health() == .ok)
        let text = String(repeating: "z", count: 2500)
        // One by one until the limit, so that some items are stored whatever the batching.
        var acknowledged: [String] = []
        for index in 0..<40 {
            let url = "https://full.example/\(index)"
            guard case .success = await store.submit(try Self.submission(url, text: text)) else { break }
            acknowledged.append(url)
        }
        #expect(!acknowledged.isEmpty && acknowledged.count < 40)
        // Then a burst that shares transactions: a batch SQLite rolls back must fail every write in it.
        let burst = try (0..<20).map { try Self.submission("https://burst.example/\($0)", text: text) }
        let results = await withTaskGroup(of: (String, Result<IntakeStoreOutcome, IntakeFailure>).self) { group in
            for (index, submission) in burst.enumerated() {
                group.addTask { ("https://burst.example/\(index)", await store.submit(submission)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let stored = Set(try store.list(limit: 100, before: nil).map(\.url))
        #expect(Set(acknowledged).isSubset(of: stored))
        var refused = 0
        for (url, result) in results {
            switch result {
            case .success(.stored(let response, _)):
                #expect(response.status == 201)
                #expect(stored.contains(url), "\(url) acknowledged but not stored")
            case .failure(let failure):
                refused += 1
                #expect(failure.kind == .storageUnavailable)
                #expect(failure.extensions["retryAfter"] == .number(30))
                #expect(!stored.contains(url), "\(url) refused but stored")
            default:
                Issue.record("unexpected \(result)")
            }
        }
        #expect(refused > 0)
        #expect(store.health() == IntakeStoreHealth(fault: .full))
        // Deleting works at the limit and makes room; the next real write clears the fault.
        for item in try store.list(limit: 100, before: nil).prefix(4) {
            #expect(await store.delete(id: item.id) == .success(true))
        }
        #expect(store.health() == .ok)
        let after = await store.submit(try Self.submission("https://full.example/after", text: text))
        #expect((try? after.get()) != nil, "\(after)")
    }

    @Test("an unusable path is a start-up error")
    func unusablePath() {
        #expect(throws: IntakeStoreError.self) { try SQLiteIntakeStore(path: "/proc/nope/intake.sqlite3") }
    }
}

/// Commit statistics reported by the writer thread.
final class CommitCounter: Sendable {
    private let state = Mutex((commits: 0, writes: 0))
    func add(_ writes: Int) { state.withLock { $0 = ($0.commits + 1, $0.writes + writes) } }
    var commits: Int { state.withLock { $0.commits } }
    var writes: Int { state.withLock { $0.writes } }
}
