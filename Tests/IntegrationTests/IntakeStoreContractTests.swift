import Foundation
import JSONSupport
import ShareIntake
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

/// The ``IntakeStore`` contract, run against every store: SQLite on a temporary file and
/// PostgreSQL on a fresh database of a throwaway cluster (``PostgresCluster``).
@Suite("intake store contract", .serialized, .tags(.live, .sanitizerRelevant))
struct IntakeStoreContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite
        case postgres
        var testDescription: String { rawValue }
    }

    /// Where one test's data lives; `open()` can be called again to reopen (a restart, or a second replica).
    struct Location {
        let kind: Kind
        let text: String

        static func fresh(_ kind: Kind) throws -> Location {
            switch kind {
            case .sqlite:
                return Location(kind: kind, text: TestScratch.root + "/intake-contract-\(UUID().uuidString)/intake.sqlite3")
            case .postgres:
                return Location(kind: kind, text: try PostgresCluster.shared.get().createDatabase())
            }
        }

        func open(groupCommit: Bool = true) throws -> any IntakeStore {
            var settings = IntakeSettings()
            settings.groupCommit = groupCommit
            if kind == .sqlite {
                try FileManager.default.createDirectory(
                    atPath: (text as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            }
            return try DatabaseLocation(text).openStore(settings)
        }
    }

    static func close(_ store: any IntakeStore) {
        (store as? PostgresIntakeStore)?.close()
    }

    /// When the test submissions say they arrived: now, not a fixed date. Stores prune idempotency
    /// records 24 h after their arrival, so a fixed timestamp turned the replay tests red once
    /// the calendar passed it by a day.
    static let receivedAt = Date.now.formatted(
        .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
            .timeZone(separator: .omitted))

    static func submission(_ url: String, key: String? = nil, fingerprint: String = "f") throws -> IntakeSubmission {
        let item = NewIntakeItem(
            url: try WebURL(validating: url), title: "t", text: nil, tags: ["a", "b"], source: "json",
            decision: ["decision": .string("allow"), "handler": .string("h")], userInfo: .object(["k": .number(1)]))
        return IntakeSubmission(
            items: [item], receivedAt: receivedAt,
            idempotency: key.map { IdempotencyClaim(key: $0, fingerprint: fingerprint) },
            respond: { results in
                let first = results.first
                return StoredResponse(
                    status: first?.duplicate == true ? 200 : 201, location: first?.item.location,
                    body: Array("{\"id\":\"\(first?.item.id ?? 0)\"}\u{0}\u{ff}".utf8))
            })
    }

    static func stored(_ status: Int, _ id: Int64, newItems: Int) -> Result<IntakeStoreOutcome, IntakeFailure> {
        .success(
            .stored(
                StoredResponse(status: status, location: "/v1/intake/\(id)", body: Array("{\"id\":\"\(id)\"}\u{0}\u{ff}".utf8)),
                newItems: newItems))
    }

    @Test(
        "stores, finds duplicates on the URL without fragment, lists newest first with a cursor, deletes",
        arguments: Kind.allCases)
    func roundTrip(kind: Kind) async throws {
        let store = try Location.fresh(kind).open()
        defer { Self.close(store) }
        #expect(await store.submit(try Self.submission("https://a.example/x#one")) == Self.stored(201, 1, newItems: 1))
        #expect(await store.submit(try Self.submission("HTTPS://A.EXAMPLE/x#two")) == Self.stored(200, 1, newItems: 0))
        _ = await store.submit(try Self.submission("https://b.example/"))
        _ = await store.submit(try Self.submission("https://c.example/"))
        let item = try #require(try store.item(id: 1))
        #expect(item.url == "https://a.example/x#one")
        #expect(item.canonicalURL == "https://a.example/x")
        #expect(item.originalURL == "https://a.example/x#one")
        #expect(item.tags == ["a", "b"])
        #expect(item.title == "t" && item.text == nil)
        #expect(item.decision == ["decision": .string("allow"), "handler": .string("h")])
        #expect(item.userInfo == .object(["k": .number(1)]))
        #expect(item.receivedAt == Self.receivedAt)
        #expect(try store.list(limit: 2, before: nil).map(\.id) == [3, 2])
        #expect(try store.list(limit: 2, before: 2).map(\.id) == [1])
        #expect(await store.delete(id: 2) == .success(true))
        #expect(await store.delete(id: 2) == .success(false))
        #expect(try store.item(id: 2) == nil)
        // Ids are never reused, even after a delete.
        #expect(await store.submit(try Self.submission("https://d.example/")) == Self.stored(201, 4, newItems: 1))
    }

    @Test(
        "Idempotency-Key: same content replays byte for byte, other content is refused, both survive a reopen",
        arguments: Kind.allCases)
    func idempotency(kind: Kind) async throws {
        let location = try Location.fresh(kind)
        do {
            let store = try location.open()
            defer { Self.close(store) }
            #expect(
                await store.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
                    == Self.stored(201, 1, newItems: 1))
            guard case .success(.stored(let response, _)) = Self.stored(201, 1, newItems: 1) else { return }
            #expect(
                await store.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
                    == .success(.replayed(response)))
        }
        let reopened = try location.open()
        defer { Self.close(reopened) }
        let replay = await reopened.submit(try Self.submission("https://a.example/", key: "k", fingerprint: "A"))
        guard case .success(.replayed(let response)) = replay else {
            Issue.record("expected a replay, got \(replay)")
            return
        }
        #expect(response.status == 201 && response.location == "/v1/intake/1")
        let reused = await reopened.submit(try Self.submission("https://b.example/", key: "k", fingerprint: "B"))
        #expect((try? reused.get()) == nil)
        if case .failure(let failure) = reused { #expect(failure.kind == .idempotencyKeyReused) }
        #expect(try reopened.list(limit: 10, before: nil).count == 1)
    }

    @Test("deleting an item forgets the keys that point at it: a retry stores afresh", arguments: Kind.allCases)
    func deleteForgetsKeys(kind: Kind) async throws {
        let store = try Location.fresh(kind).open()
        defer { Self.close(store) }
        #expect(await store.submit(try Self.submission("https://a.example/", key: "k")) == Self.stored(201, 1, newItems: 1))
        #expect(await store.delete(id: 1) == .success(true))
        #expect(await store.submit(try Self.submission("https://a.example/", key: "k")) == Self.stored(201, 2, newItems: 1))
    }

    @Test("group commit: concurrent writers share commits and every one is answered with its own item", arguments: Kind.allCases)
    func groupCommit(kind: Kind) async throws {
        let store = try Location.fresh(kind).open()
        defer { Self.close(store) }
        let commits = StoreCommitCounter()
        store.observeCommits { writes in commits.add(writes) }
        let submissions = try (0..<64).map { try Self.submission("https://g.example/\($0)") }
        let results = await withTaskGroup(of: Result<IntakeStoreOutcome, IntakeFailure>.self) { group in
            for submission in submissions { group.addTask { await store.submit(submission) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { if case .success(.stored(let r, _)) = $0 { r.status == 201 } else { false } })
        #expect(Set(results.compactMap { try? $0.get() }.map { "\($0)" }).count == 64)
        #expect(try store.list(limit: 100, before: nil).count == 64)
        #expect(commits.writes == 64)
        #expect(commits.commits < 64, "64 concurrent writes should share commits, got \(commits.commits)")
    }

    @Test("a key still in flight on the same store answers idempotency-in-flight", arguments: Kind.allCases)
    func inFlight(kind: Kind) async throws {
        let store = try Location.fresh(kind).open()
        defer { Self.close(store) }
        var sawConflict = false
        for round in 0..<20 where !sawConflict {
            let submission = try Self.submission("https://f.example/\(round)", key: "key-\(round)")
            async let first = store.submit(submission)
            async let second = store.submit(submission)
            for case .failure(let failure) in await [first, second] {
                #expect(failure.kind == .idempotencyInFlight)
                sawConflict = true
            }
        }
        #expect(sawConflict)
    }

    // MARK: - Several replicas on one PostgreSQL

    @Test("two stores on one database (two replicas): one item per URL and per key, unique ids, readable from both")
    func replicasShareOneDatabase() async throws {
        let location = try Location.fresh(.postgres)
        let replicas = [try location.open(), try location.open()]
        defer { replicas.forEach(Self.close) }
        // Every URL is posted 4 times with the same key, to alternating replicas at once.
        let outcomes = await withTaskGroup(of: (Int, Result<IntakeStoreOutcome, IntakeFailure>).self) { group in
            for round in 0..<40 {
                for attempt in 0..<4 {
                    let store = replicas[attempt % 2]
                    group.addTask {
                        guard let submission = try? Self.submission("https://r.example/\(round)", key: "key-\(round)")
                        else { return (round, .failure(IntakeFailure(.malformedBody, "bad test URL"))) }
                        return (round, await store.submit(submission))
                    }
                }
            }
            return await group.reduce(into: [(Int, Result<IntakeStoreOutcome, IntakeFailure>)]()) { $0.append($1) }
        }
        var createdPerRound: [Int: Int] = [:]
        for (round, outcome) in outcomes {
            switch outcome {
            case .success(.stored(let response, _)):
                #expect(response.status == 201)
                createdPerRound[round, default: 0] += 1
            case .success(.replayed(let response)): #expect(response.status == 201)
            case .failure(let failure): #expect(failure.kind == .idempotencyInFlight, "\(failure)")
            }
        }
        #expect((0..<40).allSatisfy { createdPerRound[$0] == 1 }, "\(createdPerRound)")
        for store in replicas {
            let items = try store.list(limit: 100, before: nil)
            #expect(items.count == 40)
            #expect(Set(items.map(\.id)).count == 40)
            #expect(Set(items.map(\.canonicalURL)).count == 40)
        }
    }

    @Test("migration race: stores opening an empty database at once all succeed, on one schema")
    func migrationRace() async throws {
        let location = try Location.fresh(.postgres)
        let opened = await withTaskGroup(of: Result<PostgresIntakeStore, IntakeStoreError>.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do throws(IntakeStoreError) {
                        return .success(try PostgresIntakeStore(uri: location.text))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<PostgresIntakeStore, IntakeStoreError>]()) { $0.append($1) }
        }
        for result in opened {
            switch result {
            case .success(let store): store.close()
            case .failure(let error): Issue.record("a replica failed to start: \(error)")
            }
        }
        let cluster = try PostgresCluster.shared.get()
        #expect(try cluster.query(location.text, "SELECT count(*), max(version) FROM navpolicyd_schema") == "1|1\n")
    }

    @Test("a database migrated by a newer build is refused at start with the versions")
    func newerSchemaRefused() throws {
        let location = try Location.fresh(.postgres)
        try location.open().close()
        let cluster = try PostgresCluster.shared.get()
        _ = try cluster.query(location.text, "UPDATE navpolicyd_schema SET version = 99")
        #expect {
            try PostgresIntakeStore(uri: location.text)
        } throws: { error in
            "\(error)".contains("schema version 99, newer than this build's 1")
        }
    }

    @Test("a server that does not answer yet: the store opens, answers 503 and reports it unreachable")
    func unreachableServer() async throws {
        let port = try freeLoopbackPort()
        let store = try PostgresIntakeStore(uri: "postgresql://user:s3cret@127.0.0.1:\(port)/db")
        defer { store.close() }
        let events = Mutex<[String]>([])
        store.observeEvents { event, details in events.withLock { $0.append(event + " " + "\(details)") } }
        #expect(store.health() == IntakeStoreHealth(fault: .unreachable))
        let outcome = await store.submit(try Self.submission("https://down.example/"))
        guard case .failure(let failure) = outcome else {
            Issue.record("a write without a server must fail, got \(outcome)")
            return
        }
        #expect(failure.kind == .storageUnavailable)
        #expect(throws: IntakeFailure.self) { try store.list(limit: 10, before: nil) }
        // Logged once, with the URI's password masked.
        let logged = events.withLock { $0 }
        #expect(logged.count == 1 && logged[0].hasPrefix("intake.store_unreachable"), "\(logged)")
        #expect(logged.allSatisfy { $0.contains("user:***@") && !$0.contains("s3cret") }, "\(logged)")
    }

    @Test("what waiting will not heal stops start-up: a malformed URI, a rejected password, the password masked")
    func permanentFailures() throws {
        #expect {
            try PostgresIntakeStore(uri: "postgresql://user:s3cret@127.0.0.1/db?nonsense=1")
        } throws: { error in
            "\(error)".contains("malformed connection URI") && !"\(error)".contains("s3cret")
        }
        // A port libpq checks only when it connects: still not something waiting heals.
        #expect {
            try PostgresIntakeStore(uri: "postgresql://user:s3cret@127.0.0.1:notaport/db")
        } throws: { error in
            "\(error)".contains("notaport") && !"\(error)".contains("s3cret")
        }
        let cluster = try PostgresCluster.shared.get()
        let role = "navpolicyd_pw_\(getpid())"
        try cluster.addPasswordRole(role, password: "right")
        let uri = try cluster.createDatabase()
        let database = uri.split(separator: "/").last.map(String.init) ?? ""
        _ = try cluster.query(uri, "ALTER DATABASE \(database) OWNER TO \(role)")
        let wrong = "postgresql://\(role):wrong-s3cret@127.0.0.1:\(cluster.port)/\(database)"
        #expect {
            try PostgresIntakeStore(uri: wrong)
        } throws: { error in
            let text = "\(error)"
            return text.contains("password authentication failed") && text.contains("\(role):***@")
                && !text.contains("wrong-s3cret")
        }
        // The right password opens it: the refusal above was the password, not the rule.
        try PostgresIntakeStore(uri: "postgresql://\(role):right@127.0.0.1:\(cluster.port)/\(database)").close()
    }
}

private extension IntakeStore {
    func close() { (self as? PostgresIntakeStore)?.close() }
}

/// Commit statistics reported by a store's writer thread.
final class StoreCommitCounter: Sendable {
    private let state = Mutex((commits: 0, writes: 0))
    func add(_ writes: Int) { state.withLock { $0 = ($0.commits + 1, $0.writes + writes) } }
    var commits: Int { state.withLock { $0.commits } }
    var writes: Int { state.withLock { $0.writes } }
}
