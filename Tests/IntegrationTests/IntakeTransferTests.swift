import Foundation
import ShareIntake
import TestScratchSupport
import Testing

/// `navpolicyd intake migrate|export|import`, run as the built binary: an SQLite store moves
/// to PostgreSQL with its ids, its JSON columns and its Idempotency-Key replays intact.
@Suite("intake migrate, export and import", .serialized)
struct IntakeTransferTests {
    @Test("SQLite → NDJSON → PostgreSQL keeps ids, items byte for byte and replays; ids continue after the highest")
    func sqliteToPostgres() async throws {
        let sqlitePath = TestScratch.root + "/intake-transfer-\(UUID().uuidString)/intake.sqlite3"
        try FileManager.default.createDirectory(
            atPath: (sqlitePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let source = try SQLiteIntakeStore(path: sqlitePath)
        for index in 1...3 {
            _ = await source.submit(try IntakeStoreContractTests.submission("https://t.example/\(index)", key: "k\(index)"))
        }
        #expect(await source.delete(id: 2) == .success(true))
        let before = try source.list(limit: 10, before: nil)

        let export = try BinaryRunner.run(["intake", "export", "--database", sqlitePath])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("exported 2 items and 2 idempotency records"))
        let uri = try PostgresCluster.shared.get().createDatabase()
        let migrate = try BinaryRunner.run(["intake", "migrate"], environment: ["NAVPOLICY_INTAKE_DATABASE_URL": uri])
        #expect(migrate.status == 0 && migrate.stdout.contains("version 0 -> 1"), "\(migrate.stdout)\(migrate.stderr)")
        let imported = try BinaryRunner.run(["intake", "import", "--database", uri], stdin: export.stdout)
        #expect(
            imported.status == 0 && imported.stdout.contains("imported 2 items and 2 idempotency records"), "\(imported.stderr)")
        // A second import would merge two stores: refused, nothing changed.
        let again = try BinaryRunner.run(["intake", "import", "--database", uri], stdin: export.stdout)
        #expect(again.status == 2 && again.stderr.contains("is not empty"), "\(again.stderr)")

        let target = try PostgresIntakeStore(uri: uri)
        defer { target.close() }
        #expect(try target.list(limit: 10, before: nil) == before)
        let replay = await target.submit(try IntakeStoreContractTests.submission("https://t.example/3", key: "k3"))
        guard case .success(.replayed(let response)) = replay else {
            Issue.record("expected the imported key to replay, got \(replay)")
            return
        }
        #expect(response.location == "/v1/intake/3")
        #expect(
            await target.submit(try IntakeStoreContractTests.submission("https://t.example/4"))
                == IntakeStoreContractTests.stored(201, 4, newItems: 1))
        // And back: PostgreSQL exports the same lines SQLite did (plus the new item).
        let back = try BinaryRunner.run(["intake", "export", "--database", uri])
        #expect(back.stdout.hasPrefix(export.stdout.split(separator: "\n").prefix(2).joined(separator: "\n")))
    }

    @Test("bad usage and bad input exit 2 with a message")
    func errors() throws {
        let noDatabase = try BinaryRunner.run(["intake", "export"], environment: ["NAVPOLICY_INTAKE_DATABASE_URL": ""])
        #expect(noDatabase.status == 2 && noDatabase.stderr.contains("no database"))
        let sqliteMigrate = try BinaryRunner.run(["intake", "migrate", "--database", "/tmp/x.sqlite3"])
        #expect(sqliteMigrate.status == 2 && sqliteMigrate.stderr.contains("not a postgresql:// URI"))
        let uri = try PostgresCluster.shared.get().createDatabase()
        let garbage = try BinaryRunner.run(["intake", "import", "--database", uri], stdin: "{\"type\":\"item\",\"id\":\"x\"}\n")
        #expect(garbage.status == 2 && garbage.stderr.contains("line 1: /dedupeKey is required"), "\(garbage.stderr)")
        let port = try freeLoopbackPort()
        let down = try BinaryRunner.run(["intake", "migrate", "--database", "postgresql://u:hunter2@127.0.0.1:\(port)/db"])
        #expect(down.status == 2 && down.stderr.contains("u:***@") && !down.stderr.contains("hunter2"), "\(down.stderr)")
    }
}
