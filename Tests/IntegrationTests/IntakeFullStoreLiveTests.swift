import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// An SQLite intake store at `intake.maxDatabaseBytes` under a flood of shares (issue 38,
/// items 11 and 13): the WAL counts against the limit too, and the 503s that follow do not
/// turn into one error line each.
@Suite("Share intake at its size limit", .serialized, .tags(.live))
struct IntakeFullStoreLiveTests {
    static let limit = 262_144

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test("a flood past maxDatabaseBytes: database file plus WAL stay within the limit, and at most one error line per interval")
    func floodAtTheLimit() throws {
        let directory = TestScratch.root + "/navpolicyd-full-\(UUID().uuidString)"
        let config = #"{"handlers":[],"intake":{"busyTimeoutMilliseconds":200,"maxDatabaseBytes":\#(Self.limit)}}"#
        let daemon = try DaemonProcess(config: config, environment: ["NAVPOLICY_DATA_DIR": directory])
        let database = directory + "/intake.sqlite3"
        let title = String(repeating: "x", count: 3000)
        var stored = 0
        var refused = 0
        var index = 0
        var firstRefusal: ContinuousClock.Instant?
        // Fill the store, then keep sending: 200 requests answered 503 after it is full.
        while refused < 200, index < 2000 {
            let body = #"{"url":"https://flood.example/\#(index)","title":"\#(title)"}"#
            let response = try Curl.request(
                daemon.baseURL + "/v1/intake", ["-H", "Content-Type: application/json", "-d", body])
            index += 1
            if response.status == 201 {
                stored += 1
            } else {
                #expect(response.status == 503, "\(response.body)")
                firstRefusal = firstRefusal ?? .now
                refused += 1
            }
        }
        #expect(stored > 10 && refused == 200, "stored \(stored), refused \(refused)")

        let onDisk = Self.fileSize(database) + Self.fileSize(database + "-wal")
        #expect(
            onDisk <= Self.limit,
            "database \(Self.fileSize(database)) + WAL \(Self.fileSize(database + "-wal")) bytes under a \(Self.limit)-byte limit"
        )

        let lines = daemon.logLines.filter { $0.contains(#""event":"intake.storage_failed""#) }
        // The first failure at once, then at most one line per 10 s interval: the refusals take
        // about a second on a quiet machine, but a loaded CI machine may stretch them over more.
        let refusalSeconds = firstRefusal.map { (ContinuousClock.now - $0).components.seconds } ?? 0
        let intervals = Int(refusalSeconds / 10) + 1
        #expect(
            (1...(intervals + 1)).contains(lines.count),
            "\(lines.count) intake.storage_failed lines for \(refused) failures over \(refusalSeconds) s")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        let suppressed = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"navpolicyd_log_lines_suppressed_total{event="intake.storage_failed"}"#)
        }
        let count = suppressed.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
        #expect(count >= refused - lines.count, "\(suppressed ?? "no suppressed-lines counter")")
        #expect(metrics.contains(#"navpolicyd_intake_requests_total{result="storage-unavailable"} "#))
    }
}
