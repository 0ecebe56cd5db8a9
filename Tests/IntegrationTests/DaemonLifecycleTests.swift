import Foundation
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reloads, authentication, shutdown and load: the daemon's behaviour over time.
@Suite("Daemon lifecycle", .serialized, .tags(.live, .sanitizerRelevant))
struct DaemonLifecycleTests {
    static let blockAbout = """
        {"handlers": [{"name": "about-v2", "type": "cancel", "action": "block", "match": {"paths": ["/about"]}}]}
        """
    static let fastWatch = #""server": {"watchIntervalMilliseconds": 100}"#

    func handler(_ daemon: DaemonProcess, _ url: String = "https://a.example/about") throws -> String? {
        try Curl.request(daemon.baseURL + "/v1/decide?url=" + url).json?["handler"] as? String
    }

    /// 30 s: under ASan, with four live shards on two cores, a reload after an atomic rename
    /// once took longer than the 10 s this waited before (stop 50's cold run; it passed again
    /// alone). A condition that holds returns at once, so only a failure waits the whole time.
    func waitFor(_ timeout: TimeInterval = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func config(_ handlers: String) -> String {
        #"{\#(Self.fastWatch), "handlers": \#(handlers)}"#
    }

    @Test("in-place edits reload; an invalid edit is rejected and the old policy keeps serving")
    func inPlaceEdits() throws {
        let path = try BinaryRunner.temporaryFile(config(#"[{"name":"about","type":"about","match":{"paths":["/about"]}}]"#))
        let daemon = try DaemonProcess(configPath: path)
        #expect(try handler(daemon) == "about")

        try Data(config(#"[{"name":"about-v2","type":"cancel","match":{"paths":["/about"]}}]"#).utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(try waitFor { try handler(daemon) == "about-v2" })

        try Data(config(#"[{"name":"broken","type":"nope"}]"#).utf8).write(to: URL(fileURLWithPath: path))
        // Waits for the complete file's error: a half-written file may be seen first.
        func lastErrors() throws -> [String] {
            let policy = try Curl.request(daemon.baseURL + "/v1/policy").json
            return ((policy?["lastReloadError"] as? [String: Any])?["errors"] as? [String]) ?? []
        }
        #expect(try waitFor { try lastErrors().first?.contains("/handlers/0/type: unknown handler type \"nope\"") == true })
        #expect(try handler(daemon) == "about-v2", "never fails open on a bad reload")
        // An in-place write can be seen half-written and fail once more: at least one failure counts.
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        let failedReloads = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"navpolicyd_policy_reloads_total{result="failed"} "#)
        }
        #expect((failedReloads?.split(separator: " ").last.flatMap { Int($0) } ?? 0) >= 1, "\(metrics)")
        #expect(daemon.logLines.contains { $0.contains(#""event":"policy.reload_failed""#) })
        #expect(try Curl.request(daemon.baseURL + "/readyz").status == 200)
    }

    @Test("atomic rename and Kubernetes-style symlink swaps reload")
    func swaps() throws {
        let directory = TestScratch.url.appendingPathComponent("navpolicyd-swap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // ConfigMap layout: navpolicy.json -> ..data/navpolicy.json, ..data -> ..v1
        let v1 = directory.appendingPathComponent("..v1")
        try FileManager.default.createDirectory(at: v1, withIntermediateDirectories: true)
        try Data(config(#"[{"name":"v1","type":"about","match":{"paths":["/about"]}}]"#).utf8).write(
            to: v1.appendingPathComponent("navpolicy.json"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("..data").path, withDestinationPath: "..v1")
        let link = directory.appendingPathComponent("navpolicy.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "..data/navpolicy.json")
        let daemon = try DaemonProcess(configPath: link.path)
        #expect(try handler(daemon) == "v1")

        // Symlink swap: write ..v2, point a temporary link at it, rename it over ..data.
        let v2 = directory.appendingPathComponent("..v2")
        try FileManager.default.createDirectory(at: v2, withIntermediateDirectories: true)
        try Data(config(#"[{"name":"v2","type":"about","match":{"paths":["/about"]}}]"#).utf8).write(
            to: v2.appendingPathComponent("navpolicy.json"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("..data_tmp").path, withDestinationPath: "..v2")
        #expect(rename(directory.appendingPathComponent("..data_tmp").path, directory.appendingPathComponent("..data").path) == 0)
        #expect(try waitFor { try handler(daemon) == "v2" })

        // Atomic rename of a regular file over the config.
        let plain = directory.appendingPathComponent("plain.json")
        try Data(config(#"[{"name":"r1","type":"about","match":{"paths":["/about"]}}]"#).utf8).write(to: plain)
        let renamed = try DaemonProcess(configPath: plain.path)
        let staged = directory.appendingPathComponent("plain.json.tmp")
        try Data(config(#"[{"name":"r2","type":"about","match":{"paths":["/about"]}}]"#).utf8).write(to: staged)
        #expect(rename(staged.path, plain.path) == 0)
        #expect(try waitFor { try handler(renamed) == "r2" })
    }

    @Test("SIGHUP and POST /v1/policy/reload reload now; the admin token guards reload")
    func explicitReloads() throws {
        let path = try BinaryRunner.temporaryFile(#"{"server":{"watchConfig":false},"handlers":[]}"#)
        let token = "tE4sQ9wZ1xC7vB2nM6kJ"
        let daemon = try DaemonProcess(configPath: path, environment: ["NAVPOLICY_ADMIN_TOKEN": token])
        try Data(
            #"{"server":{"watchConfig":false},"handlers":[{"name":"hup","type":"about","match":{"paths":["/about"]}}]}"#.utf8
        )
        .write(to: URL(fileURLWithPath: path))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try handler(daemon) == nil, "watching is off: no reload without a trigger")
        daemon.signal(SIGHUP)
        #expect(try waitFor { try handler(daemon) == "hup" })

        let anonymous = try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(anonymous.headers["content-type"] == "application/problem+json")
        let wrong = try Curl.request(
            daemon.baseURL + "/v1/policy/reload", ["-X", "POST", "-H", "Authorization: Bearer wrong-token-0123456789"])
        #expect(wrong.status == 401)
        #expect(wrong.headers["www-authenticate"]?.contains("invalid_token") == true)

        try Data(
            #"{"server":{"watchConfig":false},"handlers":[{"name":"http","type":"about","match":{"paths":["/about"]}}]}"#.utf8
        )
        .write(to: URL(fileURLWithPath: path))
        let reloaded = try Curl.request(
            daemon.baseURL + "/v1/policy/reload", ["-X", "POST", "-H", "Authorization: Bearer \(token)"])
        #expect(reloaded.status == 200)
        #expect(reloaded.json?["result"] as? String == "reloaded")
        #expect(try handler(daemon) == "http")
        let again = try Curl.request(
            daemon.baseURL + "/v1/policy/reload", ["-X", "POST", "-H", "Authorization: Bearer \(token)"])
        #expect(again.json?["result"] as? String == "unchanged")

        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        let failed = try Curl.request(
            daemon.baseURL + "/v1/policy/reload", ["-X", "POST", "-H", "Authorization: Bearer \(token)"])
        #expect(failed.status == 422)
        #expect(failed.json?["type"] as? String == "urn:navpolicyd:problem:invalid-config")
        #expect(try handler(daemon) == "http")
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=https://a/").status == 200, "decide stays open by default")
    }

    @Test("a reload that changes the proxy section warns that it needs a restart, as server and intake do")
    func proxySectionNeedsRestart() throws {
        let daemon = try DaemonProcess(config: #"{"handlers":[],"proxy":{"timeoutMilliseconds":1500}}"#)
        try Data(#"{"handlers":[],"proxy":{"timeoutMilliseconds":2500}}"#.utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath))
        #expect(try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"]).status == 200)
        let warning = daemon.waitForLog { $0.contains("policy.proxy_settings_changed") }
        #expect(warning?.contains(#""level":"warning""#) == true, "\(daemon.logLines)")
        // Back to the running proxy section, with a policy edit: nothing to restart for.
        try Data(#"{"handlers":[],"defaultDecision":"cancel","proxy":{"timeoutMilliseconds":1500}}"#.utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath))
        #expect(try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"]).status == 200)
        #expect(daemon.logLines.filter { $0.contains("policy.proxy_settings_changed") }.count == 1)
    }

    @Test("requireTokenForDecide extends the token to /v1/decide")
    func decideToken() throws {
        let token = "dC3eF8gH2jK5lP9qR1sT"
        let tokenFile = try BinaryRunner.temporaryFile(token + "\n", suffix: ".token")
        let daemon = try DaemonProcess(
            config: #"{"server":{"requireTokenForDecide":true},"handlers":[]}"#, arguments: ["--admin-token-file", tokenFile])
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=https://a/").status == 401)
        #expect(
            try Curl.request(daemon.baseURL + "/v1/decide?url=https://a/", ["-H", "Authorization: Bearer \(token)"]).status == 200
        )
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
    }

    @Test("concurrent requests during repeated reloads all succeed")
    func reloadsUnderLoad() throws {
        let path = try BinaryRunner.temporaryFile(config(#"[{"name":"a","type":"about","match":{"paths":["/about"]}}]"#))
        let daemon = try DaemonProcess(configPath: path)
        let failures = Mutex<[String]>([])
        let done = Atomic<Bool>(false)
        let group = DispatchGroup()
        let session = URLSession(configuration: .ephemeral)
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while !done.load(ordering: .relaxed) {
                    let semaphore = DispatchSemaphore(value: 0)
                    let url = URL(string: daemon.baseURL + "/v1/decide?url=https://a.example/about")
                    guard let url else { return }
                    session.dataTask(with: url) { data, response, error in
                        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                        let body = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
                        if status != 200 || !(body.contains(#""handler":"a""#) || body.contains(#""handler":"b""#)) {
                            failures.withLock { $0.append("\(status) \(error.map { "\($0)" } ?? "") \(body)") }
                        }
                        semaphore.signal()
                    }.resume()
                    semaphore.wait()
                }
            }
        }
        for round in 0..<20 {
            let name = round % 2 == 0 ? "b" : "a"
            try Data(config(#"[{"name":"\#(name)","type":"about","match":{"paths":["/about"]}}]"#).utf8).write(
                to: URL(fileURLWithPath: path))
            _ = try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
            Thread.sleep(forTimeInterval: 0.05)
        }
        done.store(true, ordering: .relaxed)
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains(#"navpolicyd_policy_reloads_total{result="reloaded"}"#))
        #expect(!metrics.contains(#"code="5"#))
    }

    @Test("SIGTERM lets a request in flight finish, refuses new ones, and exits 0")
    func gracefulShutdown() throws {
        let daemon = try DaemonProcess()
        // A slow client: headers and half the body now, the rest after SIGTERM.
        let body = #"{"url":"https://app.example.com/logout"}"#
        let slow = try RawConnection(port: daemon.port)
        slow.send(
            "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body.prefix(10))
        Thread.sleep(forTimeInterval: 0.3)
        daemon.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(daemon.process.isRunning, "still draining the request in flight")
        slow.send(String(body.dropFirst(10)))
        let response = slow.receiveResponse()
        #expect(response.status == 200)
        #expect(response.body.contains(#""handler":"logout""#))
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.logLines.contains { $0.contains(#""event":"shutdown.finished""#) })
        #expect((try? Curl.request(daemon.baseURL + "/healthz").status) ?? 0 == 0, "nothing listens after exit")
    }

    @Test("the decision log gets one NDJSON line per decision")
    func decisionLog() throws {
        let logPath = TestScratch.url.appendingPathComponent("decisions-\(UUID().uuidString).ndjson").path
        let daemon = try DaemonProcess(arguments: ["--decision-log", logPath])
        let decided = try Curl.request(
            daemon.baseURL + "/v1/decide?url=https://app.example.com/logout&navigationType=linkActivated")
        let id = try #require(decided.json?["decisionId"] as? String)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(entry["decisionId"] as? String == id)
        #expect(entry["handler"] as? String == "logout")
        #expect((entry["request"] as? [String: Any])?["navigationType"] as? String == "linkActivated")
        #expect((entry["decision"] as? [String: Any])?["action"] as? String == "logout")
        #expect((entry["revision"] as? String)?.hasPrefix("sha256:") == true)
        #expect(entry["time"] is String)
    }

    @Test("serve refuses an invalid config, address or token at start with exit 2")
    func startupErrors() throws {
        let bad = try BinaryRunner.temporaryFile(#"{"handlers":[{"name":"x","type":"nope"}],"server":{"listen":"nowhere"}}"#)
        let invalid = try BinaryRunner.run(["serve", "--config", bad])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("/handlers/0/type"))
        #expect(invalid.stderr.contains("/server/listen"))
        #expect(try BinaryRunner.run(["serve", "--listen", "example.com:80"]).status == 2)
        #expect(
            try BinaryRunner.run(["serve", "--listen", "127.0.0.1:0"], environment: ["NAVPOLICY_ADMIN_TOKEN": "short"]).status
                == 2)
        let occupied = try DaemonProcess()
        let conflict = try BinaryRunner.run(["serve", "--listen", "127.0.0.1:\(occupied.port)"])
        #expect(conflict.status == 2)
        #expect(conflict.stderr.contains("cannot start"))
    }

    /// Each server reports its own start error, and `serve` prints it as before the HTTP and
    /// gRPC servers stopped sharing one error type: the HTTP server's detail as it is, the gRPC
    /// server's after the listener's name.
    @Test("a listener whose port is taken: exit 2 with that server's own reason")
    func listenerStartErrorsKeepTheirServersReason() throws {
        let occupied = try DaemonProcess()
        let address = "127.0.0.1:\(occupied.port)"
        let http = try BinaryRunner.run(["serve", "--listen", "127.0.0.1:0", "--proxy-listen", address])
        #expect(http.status == 2)
        #expect(http.stderr.contains(": cannot listen on \(address): address already in use"), "\(http.stderr)")
        let grpc = try BinaryRunner.run(["serve", "--listen", "127.0.0.1:0", "--ext-authz-grpc-listen", address])
        #expect(grpc.status == 2)
        #expect(
            grpc.stderr.contains(": ext_authz gRPC listener: bind \(address): Address already in use"), "\(grpc.stderr)")
    }
}
