import CSQLite
import Foundation
import Synchronization
import TestScratchSupport
import Testing

/// `kill -9` under intake load: every acknowledged share survives, the database is intact,
/// and retries with the same Idempotency-Key replay instead of storing twice.
@Suite("Share intake crash safety")
struct IntakeCrashTests {
    /// One request of the load loop and what the client heard.
    struct Attempt: Sendable {
        var key: String
        var body: String
        var status: Int
        var responseBody: String
    }

    @Test("kill -9 mid-load, restart on the same database")
    func killDuringLoad() throws {
        let dataDirectory = TestScratch.root + "/navpolicyd-crash-\(UUID().uuidString)"
        let environment = ["NAVPOLICY_DATA_DIR": dataDirectory]
        let daemon = try DaemonProcess(environment: environment)
        let intake = daemon.baseURL + "/v1/intake"

        let attempts = Mutex<[Attempt]>([])
        let killed = Atomic<Bool>(false)
        let clients = 8
        let group = DispatchGroup()
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                var sequence = 0
                // Each client keeps posting until a request fails after the kill.
                while sequence < 2_000 {
                    sequence += 1
                    let key = "crash-\(client)-\(sequence)"
                    let body = #"{"url":"https://crash.example/\#(client)/\#(sequence)","title":"c"}"#
                    let response = try? Curl.request(
                        intake, ["-H", "Content-Type: application/json", "-H", "Idempotency-Key: \(key)", "-d", body])
                    let status = response?.status ?? 0
                    attempts.withLock {
                        $0.append(Attempt(key: key, body: body, status: status, responseBody: response?.body ?? ""))
                    }
                    if status == 0, killed.load(ordering: .relaxed) { return }
                }
            }
        }
        // Let the load build up (by acknowledgements, not by time: the machine may be slow),
        // then kill without warning while the clients keep sending.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, attempts.withLock({ $0.count { (200..<300).contains($0.status) } }) < 30 {
            Thread.sleep(forTimeInterval: 0.02)
        }
        killed.store(true, ordering: .relaxed)
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        group.wait()

        let all = attempts.withLock { $0 }
        let acknowledged = all.filter { (200..<300).contains($0.status) }
        #expect(acknowledged.count >= 30, "too little load before the kill: \(acknowledged.count)")
        print("intake crash test: \(acknowledged.count) acknowledged, \(all.count - acknowledged.count) cut off by kill -9")
        #expect(all.allSatisfy { $0.status == 0 || (200..<300).contains($0.status) }, "unexpected statuses")

        // The database is consistent before anything reopens it.
        #expect(try Self.integrityCheck(dataDirectory + "/intake.sqlite3") == "ok")

        let restarted = try DaemonProcess(environment: environment)
        let base = restarted.baseURL
        // Every acknowledged item is present.
        let listedIDs = Set(try Self.allItems(base).compactMap { $0["id"] as? String })
        let acknowledgedIDs = acknowledged.compactMap { Self.member("id", in: $0.responseBody) }
        #expect(acknowledgedIDs.count == acknowledged.count)
        #expect(Set(acknowledgedIDs).isSubset(of: listedIDs), "acknowledged items missing after the restart")

        // Retrying every request: acknowledged ones replay exactly; ones cut off by the kill
        // either committed (their retry replays) or left nothing (their retry stores now).
        let retries = Mutex<[(Attempt, Curl.Response?)]>([])
        DispatchQueue.concurrentPerform(iterations: clients) { worker in
            for attempt in all.enumerated().filter({ $0.offset % clients == worker }).map(\.element) {
                let retry = try? Curl.request(
                    base + "/v1/intake",
                    ["-H", "Content-Type: application/json", "-H", "Idempotency-Key: \(attempt.key)", "-d", attempt.body])
                retries.withLock { $0.append((attempt, retry)) }
            }
        }
        for (attempt, retry) in retries.withLock({ $0 }) {
            if attempt.status == 0 {
                #expect([201].contains(retry?.status ?? 0) || retry?.headers["idempotent-replayed"] == "true", "\(attempt.key)")
            } else {
                #expect(retry?.status == attempt.status, "\(attempt.key)")
                #expect(retry?.body == attempt.responseBody, "\(attempt.key)")
                #expect(retry?.headers["idempotent-replayed"] == "true", "\(attempt.key)")
            }
        }
        // Exactly one item per URL sent: nothing lost, nothing stored twice.
        let listed = try Self.allItems(base).compactMap { $0["url"] as? String }
        #expect(listed.count == Set(listed).count)
        #expect(Set(listed) == Set(all.compactMap { Self.member("url", in: $0.body) }))
    }

    static func integrityCheck(_ path: String) throws -> String {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            throw DaemonError("cannot open \(path)")
        }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw DaemonError("cannot prepare integrity_check")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "no result" }
        return String(cString: text)
    }

    static func member(_ name: String, in body: String) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])?[name] as? String
    }

    static func allItems(_ base: String) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var after = ""
        while true {
            let page = try Curl.request(base + "/v1/intake?limit=100" + after).json
            items += page?["items"] as? [[String: Any]] ?? []
            guard let next = page?["next"] as? String else { return items }
            after = "&after=" + next
        }
    }
}
