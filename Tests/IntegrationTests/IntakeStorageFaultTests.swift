import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// Storage faults under a running daemon (issue 12): a full database or disk, a read-only
/// file, a database deleted or replaced, another process's write lock. In each, intake
/// answers 503 `storage-unavailable` with Retry-After, `/readyz/intake` is 503 (`/readyz`, the
/// decision readiness, stays 200), decisions keep
/// answering 200, every acknowledged item is kept, and it recovers without a restart.
@Suite("Share intake storage faults", .serialized, .tags(.live, .sanitizerRelevant))
struct IntakeStorageFaultTests {
    /// A daemon whose intake database is `<directory>/intake.sqlite3`.
    struct Fixture {
        let daemon: DaemonProcess
        let directory: String
        var database: String { directory + "/intake.sqlite3" }
        var base: String { daemon.baseURL }

        init(intake: String = "", directory: String? = nil) throws {
            self.directory = directory ?? TestScratch.root + "/navpolicyd-faults-\(UUID().uuidString)"
            // A short busy timeout keeps the lock test quick; the default is 5 s.
            let config = #"{"handlers":[],"intake":{"busyTimeoutMilliseconds":200\#(intake)}}"#
            daemon = try DaemonProcess(config: config, environment: ["NAVPOLICY_DATA_DIR": self.directory])
        }

        func post(_ url: String, title: String = "t") throws -> Curl.Response {
            let body = #"{"url":"\#(url)","title":"\#(title)"}"#
            return try Curl.request(base + "/v1/intake", ["-H", "Content-Type: application/json", "-d", body])
        }

        func status(_ path: String) throws -> Int { try Curl.request(base + path).status }

        /// Posts one item and returns its id; the test fails unless it is acknowledged.
        func store(_ url: String) throws -> String {
            let response = try post(url)
            #expect(response.status == 201, "\(url): \(response.status) \(response.body)")
            return try #require(response.json?["id"] as? String)
        }

        /// The fault's contract: 503 storage-unavailable with Retry-After on intake, 503 on
        /// readyz/intake, 200 on readyz (decisions need only the policy), decide and healthz.
        func expectUnavailable(_ response: Curl.Response, _ comment: Comment? = nil) throws {
            #expect(response.status == 503, comment)
            #expect(response.headers["content-type"] == "application/problem+json", comment)
            #expect((response.json?["type"] as? String)?.hasSuffix(":storage-unavailable") == true, comment)
            let retryAfter = Int(response.headers["retry-after"] ?? "")
            #expect(retryAfter.map { $0 >= 1 } == true, "Retry-After: \(response.headers["retry-after"] ?? "none")")
            let ready = try Curl.request(base + "/readyz/intake")
            #expect(ready.status == 503, "readyz/intake during the fault: \(ready.body)")
            #expect((ready.json?["type"] as? String)?.hasSuffix(":storage-unavailable") == true)
            #expect(try status("/readyz") == 200, "decision readiness does not depend on the intake store")
            #expect(try status("/v1/decide?url=https%3A%2F%2Fwww.example.com%2F") == 200)
            #expect(try status("/healthz") == 200)
        }

        /// Bounded wait for `/readyz/intake` to turn 200 again (the store recovers by itself).
        func expectRecovered(_ comment: Comment? = nil) throws {
            let deadline = Date().addingTimeInterval(15)
            var last = 0
            while Date() < deadline {
                last = try status("/readyz/intake")
                if last == 200 { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(last == 200, comment)
        }

        func expectPresent(_ ids: [String]) throws {
            for id in ids { #expect(try status("/v1/intake/\(id)") == 200, "item \(id) lost") }
        }
    }

    /// Runs a program to completion; throws when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw DaemonError("\(executable) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

    @discardableResult
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        try run("/usr/bin/sqlite3", [path, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `chattr +i` works here: tests run as root, which chmod does not stop, and the
    /// immutable flag needs root and a file system that has it (ext4, xfs, btrfs).
    static let immutableFlagWorks: Bool = {
        let path = TestScratch.root + "/navpolicyd-chattr-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: path, contents: Data()) else { return false }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard (try? run("/usr/bin/chattr", ["+i", path])) != nil else { return false }
        _ = try? run("/usr/bin/chattr", ["-i", path])
        return true
    }()

    @Test("another process holds the write lock past the busy timeout: 503, then stores again once it lets go")
    func outsideWriterLock() throws {
        let fixture = try Fixture()
        let first = try fixture.store("https://lock.example/1")
        // python3's sqlite3 holds BEGIN EXCLUSIVE until its stdin closes.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1],isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\n"
                + "print('locked',flush=True)\nsys.stdin.read()\nc.execute('ROLLBACK')",
            fixture.database,
        ]
        let input = Pipe()
        let output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(line.hasPrefix("locked"))

        try fixture.expectUnavailable(try fixture.post("https://lock.example/2"), "while locked")
        // Reads do not need the write lock in WAL mode.
        try fixture.expectPresent([first])

        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        try fixture.expectRecovered("after the lock was released")
        let second = try fixture.store("https://lock.example/2")
        try fixture.expectPresent([first, second])
    }

    @Test("intake.maxDatabaseBytes reached: 503 like a full disk, and writes resume once items are deleted")
    func databaseSizeLimit() throws {
        let fixture = try Fixture(intake: #","maxDatabaseBytes":65536"#)
        let title = String(repeating: "x", count: 3000)
        var acknowledged: [String] = []
        var refused: Curl.Response?
        for index in 0..<100 {
            let response = try fixture.post("https://full.example/\(index)", title: title)
            if response.status == 201, let id = response.json?["id"] as? String {
                acknowledged.append(id)
                continue
            }
            refused = response
            break
        }
        let full = try #require(refused, "64 KiB never filled up")
        #expect(acknowledged.count >= 3)
        try fixture.expectUnavailable(full, "at the size limit")
        try fixture.expectUnavailable(try fixture.post("https://full.example/again", title: title), "still full")

        // Deleting works at the limit (it takes no new pages) and frees room for new items.
        let freed = acknowledged.prefix(acknowledged.count / 2)
        for id in freed {
            #expect(try Curl.request(fixture.base + "/v1/intake/\(id)", ["-X", "DELETE"]).status == 204)
        }
        try fixture.expectRecovered("after deleting items")
        acknowledged.append(try fixture.store("https://full.example/after"))
        try fixture.expectPresent(Array(acknowledged.dropFirst(freed.count)))
        #expect(try Self.sqlite(fixture.database, "PRAGMA integrity_check") == "ok")
    }

    @Test(
        "a full file system (tmpfs): 503, then stores again once space is freed",
        .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func fullFileSystem() throws {
        let mountPoint = TestScratch.root + "/navpolicyd-tmpfs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        defer { _ = try? Self.run("/usr/bin/umount", ["-l", mountPoint]) }
        let fixture = try Fixture(directory: mountPoint + "/data")
        // Most of the space goes to a file the test deletes later, so filling takes few requests.
        let filler = mountPoint + "/filler"
        try Self.run("/usr/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k", "count=24"])
        let title = String(repeating: "y", count: 6000)
        var acknowledged: [String] = []
        var refused: Curl.Response?
        for index in 0..<400 {
            let response = try fixture.post("https://disk.example/\(index)", title: title)
            if response.status == 201, let id = response.json?["id"] as? String {
                acknowledged.append(id)
                continue
            }
            refused = response
            break
        }
        let full = try #require(refused, "2 MiB never filled up")
        try fixture.expectUnavailable(full, "disk full")

        try FileManager.default.removeItem(atPath: filler)
        try fixture.expectRecovered("after freeing space")
        acknowledged.append(try fixture.store("https://disk.example/after"))
        try fixture.expectPresent(acknowledged)
    }

    @Test(
        "a read-only database and directory (chattr +i): 503, then stores again once writable",
        .enabled(if: immutableFlagWorks, "needs root and a file system with the immutable flag"))
    func readOnlyDirectory() throws {
        let fixture = try Fixture()
        let first = try fixture.store("https://readonly.example/1")
        let paths = [fixture.database, fixture.database + "-wal", fixture.directory]
        for path in paths { try Self.run("/usr/bin/chattr", ["+i", path]) }
        defer { for path in paths { _ = try? Self.run("/usr/bin/chattr", ["-i", path]) } }

        try fixture.expectUnavailable(try fixture.post("https://readonly.example/2"), "read-only")
        try fixture.expectUnavailable(try fixture.post("https://readonly.example/3"), "still read-only")

        for path in paths { try Self.run("/usr/bin/chattr", ["-i", path]) }
        try fixture.expectRecovered("after chattr -i")
        let second = try fixture.store("https://readonly.example/2")
        try fixture.expectPresent([first, second])
    }

    @Test("the database deleted under the daemon: 503 and a detached copy, never an empty store; back once restored")
    func deletedDatabase() throws {
        let fixture = try Fixture()
        let first = try fixture.store("https://deleted.example/1")
        try FileManager.default.removeItem(atPath: fixture.database)

        try fixture.expectUnavailable(try fixture.post("https://deleted.example/2"), "deleted")
        // Reads fail too, rather than answering from a file nobody can reach any more.
        #expect(try fixture.status("/v1/intake/\(first)") == 503)
        #expect(!FileManager.default.fileExists(atPath: fixture.database), "an empty store was created in its place")
        let copies = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
            .filter { $0.hasPrefix("intake.sqlite3.detached-") }
        let copy = fixture.directory + "/" + (try #require(copies.first, "no detached copy in \(copies)"))
        #expect(try Self.sqlite(copy, "SELECT url FROM intake_items") == "https://deleted.example/1")
        #expect(fixture.daemon.logLines.contains { $0.contains("intake.store_detached") && $0.contains("deleted") })

        // The operator puts the copy back: the daemon takes it up by itself.
        try FileManager.default.moveItem(atPath: copy, toPath: fixture.database)
        try fixture.expectRecovered("after restoring the file")
        let second = try fixture.store("https://deleted.example/2")
        try fixture.expectPresent([first, second])
        #expect(
            try Self.sqlite(fixture.database, "SELECT url FROM intake_items ORDER BY id")
                == "https://deleted.example/1\nhttps://deleted.example/2")
        #expect(try Self.sqlite(fixture.database, "PRAGMA integrity_check") == "ok")
        #expect(fixture.daemon.logLines.contains { $0.contains("intake.store_reopened") })
    }

    @Test("the database replaced under the daemon: it switches to the new file and keeps the old one as a copy")
    func replacedDatabase() throws {
        let fixture = try Fixture()
        let first = try fixture.store("https://replaced.example/1")
        let backup = fixture.directory + "/backup.sqlite3"
        try Self.sqlite(fixture.database, ".backup '\(backup)'")
        let second = try fixture.store("https://replaced.example/2")
        // An atomic replace, as a restore from backup would do it.
        #expect(rename(backup, fixture.database) == 0)

        // The first write after the switch goes to the new file; the old file's items are
        // kept in the detached copy (the operator chose the new file's contents).
        let third = try fixture.store("https://replaced.example/3")
        try fixture.expectPresent([first, third])
        #expect(second == third, "the new file continues its own ids")
        #expect(
            try Self.sqlite(fixture.database, "SELECT url FROM intake_items ORDER BY id")
                == "https://replaced.example/1\nhttps://replaced.example/3")
        let copies = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
            .filter { $0.hasPrefix("intake.sqlite3.detached-") }
        let copy = fixture.directory + "/" + (try #require(copies.first, "no detached copy"))
        #expect(
            try Self.sqlite(copy, "SELECT url FROM intake_items ORDER BY id")
                == "https://replaced.example/1\nhttps://replaced.example/2")
        #expect(fixture.daemon.logLines.contains { $0.contains("intake.store_detached") && $0.contains("replaced") })
        #expect(try fixture.status("/readyz/intake") == 200)
        #expect(try Self.sqlite(fixture.database, "PRAGMA integrity_check") == "ok")
    }
    @Test("the database replaced by a file that is not a database: 503 with fault corrupt, back once a database is there")
    func replacedByGarbage() throws {
        let fixture = try Fixture()
        let first = try fixture.store("https://garbage.example/1")
        let backup = fixture.directory + "/backup.sqlite3"
        try Self.sqlite(fixture.database, ".backup '\(backup)'")
        let garbage = fixture.directory + "/garbage"
        try Data(String(repeating: "not a database\n", count: 400).utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(rename(garbage, fixture.database) == 0)

        try fixture.expectUnavailable(try fixture.post("https://garbage.example/2"), "garbage at the path")
        let ready = try Curl.request(fixture.base + "/readyz/intake")
        #expect((ready.json?["intake"] as? [String: Any])?["fault"] as? String == "corrupt", "\(ready.body)")

        #expect(rename(backup, fixture.database) == 0)
        try fixture.expectRecovered("after restoring the backup")
        let second = try fixture.store("https://garbage.example/2")
        try fixture.expectPresent([first, second])
    }
}
