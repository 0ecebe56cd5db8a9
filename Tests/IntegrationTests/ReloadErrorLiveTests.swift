import Foundation
import TestSelection
import Testing

/// `lastReloadError` against the real binary: a failure recorded while the config was moved
/// away does not outlive the file's return.
@Suite("stale reload errors, live", .serialized, .tags(.live, .sanitizerRelevant))
struct ReloadErrorLiveTests {
    static func config(watch: Bool) -> String {
        let policy = defaultConfig.trimmingCharacters(in: .whitespacesAndNewlines)
        return #"{"server":{"watchConfig":\#(watch),"watchIntervalMilliseconds":100},"# + policy.dropFirst()
    }

    /// Polls `GET /v1/status` until `done` holds (at most 10 s) and returns the last report.
    private func status(_ daemon: DaemonProcess, until done: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(10)
        var last: [String: Any] = [:]
        repeat {
            last = try Curl.request(daemon.baseURL + "/v1/status").json ?? [:]
            if done(last) { return last }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return last
    }

    private static func lastReloadError(_ status: [String: Any]) -> Any? {
        (status["policy"] as? [String: Any])?["lastReloadError"].flatMap { $0 is NSNull ? nil : $0 }
    }

    private static func newestReload(_ status: [String: Any]) -> [String: Any]? {
        ((status["reloads"] as? [String: Any])?["recent"] as? [[String: Any]])?.first
    }

    /// Moves the config away, asks for a reload (fails), waits `away` seconds, moves it back.
    private func moveAwayReloadAndBack(_ daemon: DaemonProcess, away: TimeInterval = 0) throws {
        let aside = daemon.configPath + ".aside"
        try FileManager.default.moveItem(atPath: daemon.configPath, toPath: aside)
        let failed = try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(failed.status == 422, "\(failed.body)")
        let policy = try Curl.request(daemon.baseURL + "/v1/policy").json
        #expect(policy?["lastReloadError"] is [String: Any], "\(String(describing: policy))")
        Thread.sleep(forTimeInterval: away)
        try FileManager.default.moveItem(atPath: aside, toPath: daemon.configPath)
    }

    @Test("with file watching, the file's return is reloaded (unchanged) and clears the error")
    func watched() throws {
        let daemon = try DaemonProcess(config: Self.config(watch: true))
        // The watcher polls every 100 ms and sees a change only if one of its polls finds the
        // file missing; a move back within one interval is, correctly, no change at all. Ten
        // intervals away makes the test about the return, not about the poll's timing (under
        // the sanitizers the failed reload and the status read can take less than one interval).
        try moveAwayReloadAndBack(daemon, away: 1)
        let status = try status(daemon) { Self.newestReload($0)?["trigger"] as? String == "file-watch" }
        #expect(Self.newestReload(status)?["result"] as? String == "unchanged", "\(status)")
        #expect(Self.lastReloadError(status) == nil, "\(status)")
        #expect(try Curl.request(daemon.baseURL + "/v1/policy").json?["lastReloadError"] is NSNull)
    }

    @Test("without file watching, reading the error notices the file holds the running revision")
    func unwatched() throws {
        let daemon = try DaemonProcess(config: Self.config(watch: false))
        try moveAwayReloadAndBack(daemon)
        let status = try status(daemon) { Self.lastReloadError($0) == nil }
        #expect(Self.lastReloadError(status) == nil, "\(status)")
        // No reload happened: the newest attempt is still the failure, listed with its error.
        #expect(Self.newestReload(status)?["result"] as? String == "failed")
        #expect((Self.newestReload(status)?["errors"] as? [String])?.first?.contains("no such file") == true)
    }
}
