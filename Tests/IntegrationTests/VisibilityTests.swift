import Foundation
import TestScratchSupport
import Testing

/// What an operator sees of a running daemon: the proxy's and the process's metrics (checked
/// by promtool), auth failures in the log, intake decisions in the decision log, the decision
/// log's reopen on SIGUSR1 and the `listening` line.
@Suite("visibility, live", .serialized)
struct VisibilityTests {
    /// The value of the sample line that starts with `prefix` (name and labels), if present.
    static func sample(_ metrics: String, _ prefix: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }

    @Test("proxy traffic shows in navpolicyd_proxy_* with process_* metrics, and promtool accepts /metrics")
    func proxyAndProcessMetrics() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        let big = try Curl.request(origin.baseURL + "/big", proxy)
        #expect(big.status == 200)
        let posted = try Curl.request(origin.baseURL + "/echo", proxy + ["--data-binary", String(repeating: "p", count: 1000)])
        #expect(posted.status == 200)
        #expect(try Curl.request(origin.baseURL + "/logout", proxy).status == 403)
        let closed = try freeLoopbackPort()
        #expect(try Curl.request("http://127.0.0.1:\(closed)/nothing-here", proxy).status == 502)
        #expect(try Curl.request(origin.baseURL + "/slow", proxy).status == 504)

        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(Self.sample(metrics, #"navpolicyd_proxy_requests_total{code="200"}"#) == 2, "\(metrics)")
        #expect(Self.sample(metrics, #"navpolicyd_proxy_requests_total{code="403"}"#) == 1)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_requests_total{code="502"}"#) == 1)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_requests_total{code="504"}"#) == 1)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_upstream_errors_total{kind="connect"}"#) == 1)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_upstream_errors_total{kind="timeout"}"#) == 1)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_upstream_errors_total{kind="reset"}"#) == 0)
        // Two answered forwards and two failed ones waited on an origin; the cancel did not.
        #expect(Self.sample(metrics, "navpolicyd_proxy_upstream_duration_seconds_count") == 4)
        #expect(Self.sample(metrics, #"navpolicyd_proxy_upstream_duration_seconds_bucket{le="+Inf"}"#) == 4)
        for bound in ["0.05", "0.25", "2.5", "5.0"] {
            #expect(metrics.contains(#"navpolicyd_proxy_upstream_duration_seconds_bucket{le="\#(bound)"}"#))
        }
        #expect((Self.sample(metrics, #"navpolicyd_proxy_bytes_total{direction="downstream"}"#) ?? 0) >= Double(1 << 20))
        #expect((Self.sample(metrics, #"navpolicyd_proxy_bytes_total{direction="upstream"}"#) ?? 0) >= 1000)
        for name in [
            "process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
            "process_start_time_seconds", "process_open_fds", "process_max_fds",
        ] {
            #expect((Self.sample(metrics, name) ?? 0) > 0, "\(name) in \(metrics)")
        }
        let started = try #require(Self.sample(metrics, "process_start_time_seconds"))
        #expect(abs(started - Date().timeIntervalSince1970) < 600, "start time \(started) is not recent")

        let file = try BinaryRunner.temporaryFile(metrics)
        let lint = try Curl.standardOutput(of: "/bin/sh", ["-c", "promtool check metrics < '\(file)' 2>&1; echo \"exit=$?\""])
        #expect(lint.hasSuffix("exit=0\n"), "promtool: \(lint)")
    }

    @Test("a refused token logs auth.failed with route, peer and reason, and the token appears nowhere")
    func authFailures() throws {
        let adminToken = "Adm1n-\(UUID().uuidString)"
        let intakeToken = "Int4ke-\(UUID().uuidString)"
        let wrong = "Wr0ng-\(UUID().uuidString)"
        let logPath = TestScratch.root + "/auth-decisions-\(UUID().uuidString).ndjson"
        let daemon = try DaemonProcess(
            arguments: ["--decision-log", logPath],
            environment: ["NAVPOLICY_ADMIN_TOKEN": adminToken, "NAVPOLICY_INTAKE_TOKEN": intakeToken])
        let reload = daemon.baseURL + "/v1/policy/reload"
        #expect(try Curl.request(reload, ["-X", "POST", "-H", "Authorization: Bearer \(wrong)"]).status == 401)
        #expect(try Curl.request(reload, ["-X", "POST"]).status == 401)
        #expect(try Curl.request(reload, ["-X", "POST", "-H", "Authorization: Basic \(wrong)"]).status == 401)
        let intake = try Curl.request(
            daemon.baseURL + "/v1/intake/7", ["-H", "Authorization: Bearer \(adminToken)"])
        #expect(intake.status == 401, "the admin token does not open the intake")
        #expect(try Curl.request(reload, ["-X", "POST", "-H", "Authorization: Bearer \(adminToken)"]).status == 200)

        let failures = [
            (#""route":"/v1/policy/reload""#, #""reason":"wrong""#),
            (#""route":"/v1/policy/reload""#, #""reason":"missing""#),
            (#""route":"/v1/policy/reload""#, #""reason":"malformed""#),
            (#""route":"/v1/intake/{id}""#, #""reason":"wrong""#),
        ]
        for (route, reason) in failures {
            let line = daemon.waitForLog {
                $0.contains(#""event":"auth.failed""#) && $0.contains(route) && $0.contains(reason)
            }
            #expect(line != nil, "no auth.failed with \(route) \(reason): \(daemon.logLines)")
            #expect(line?.contains(#""peer":"127.0.0.1""#) == true)
        }
        let events = daemon.logLines.filter { $0.contains(#""event":"auth.failed""#) }
        #expect(events.count == 4, "only refusals are logged: \(events)")
        #expect(events.contains { $0.contains(#""realm":"navpolicyd-intake""#) })
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let decisionLog = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let everything = daemon.logLines.joined(separator: "\n") + decisionLog
        for secret in [adminToken, intakeToken, wrong] {
            #expect(!everything.contains(secret), "a token reached the logs")
            // Not even a prefix long enough to narrow a guess.
            #expect(!everything.contains(String(secret.prefix(10))))
        }
    }

    @Test("an intake POST writes its decision to the decision log, with a decisionId")
    func intakeDecisionLogged() throws {
        let logPath = TestScratch.root + "/intake-decisions-\(UUID().uuidString).ndjson"
        let daemon = try DaemonProcess(arguments: ["--decision-log", logPath])
        let url = "https://app.example.com/logout?from=share-\(UUID().uuidString)"
        let response = try Curl.request(
            daemon.baseURL + "/v1/intake", ["-H", "Content-Type: application/json", "-d", #"{"url":"\#(url)"}"#])
        #expect(response.status == 201, "\(response.body)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
        let entry = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect((entry["request"] as? [String: Any])?["url"] as? String == url)
        #expect((entry["decisionId"] as? String)?.isEmpty == false)
        #expect(entry["handler"] as? String == "logout")
        #expect((entry["decision"] as? [String: Any])?["decision"] as? String == "cancel")
    }

    @Test("SIGUSR1 reopens the decision log: after a rename, new lines go to a new file at the path, none lost")
    func reopenOnSIGUSR1() throws {
        let directory = TestScratch.root + "/rotate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let logPath = directory + "/decisions.ndjson"
        let daemon = try DaemonProcess(arguments: ["--decision-log", logPath])
        let decide = daemon.baseURL + "/v1/decide?url=https://app.example.com/"
        var ids: [String] = []
        for _ in 0..<5 { ids.append(try #require(try Curl.request(decide).json?["decisionId"] as? String)) }
        // Let the writer thread put the first lines out before the rename.
        let deadline = Date().addingTimeInterval(10)
        while ((try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 5,
            Date() < deadline
        {
            Thread.sleep(forTimeInterval: 0.02)
        }
        try FileManager.default.moveItem(atPath: logPath, toPath: logPath + ".1")
        daemon.signal(SIGUSR1)
        #expect(daemon.waitForLog { $0.contains(#""event":"decision_log.reopened""#) } != nil, "\(daemon.logLines)")
        #expect(daemon.process.isRunning, "SIGUSR1 must not end the daemon")
        var later: [String] = []
        for _ in 0..<5 { later.append(try #require(try Curl.request(decide).json?["decisionId"] as? String)) }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)

        func decisionIds(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(entry["decisionId"] as? String)
            }
        }
        #expect(try decisionIds(logPath + ".1") == ids, "the rotated file keeps the lines before the signal")
        #expect(try decisionIds(logPath) == later, "the new file at the path gets the lines after it")
    }

    @Test("the shipped deploy/logrotate file, run by logrotate, rotates the decision log without losing a line")
    func shippedLogrotate() throws {
        let directory = TestScratch.root + "/logrotate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let logPath = directory + "/decisions.ndjson"
        let daemon = try DaemonProcess(arguments: ["--decision-log", logPath])
        let decide = daemon.baseURL + "/v1/decide?url=https://app.example.com/"
        var before: [String] = []
        for _ in 0..<3 { before.append(try #require(try Curl.request(decide).json?["decisionId"] as? String)) }
        let deadline = Date().addingTimeInterval(10)
        while ((try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 3,
            Date() < deadline
        {
            Thread.sleep(forTimeInterval: 0.02)
        }
        // The shipped file, pointed at this daemon: its path and its PID instead of systemd's unit.
        let shipped = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent("deploy/logrotate/navpolicyd"), encoding: .utf8)
        let signal = "systemctl kill --signal=SIGUSR1 --kill-whom=main navpolicyd.service"
        #expect(shipped.contains("/var/log/navpolicyd/decisions.ndjson {") && shipped.contains(signal))
        let config = shipped.replacing("/var/log/navpolicyd/decisions.ndjson", with: logPath)
            .replacing(signal, with: "kill -USR1 \(daemon.process.processIdentifier)")
            .replacing("systemctl --quiet is-active navpolicyd.service", with: "true")
        let configPath = directory + "/logrotate.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let run = try Curl.standardOutput(
            of: "/bin/sh",
            ["-c", "/usr/sbin/logrotate --force --state '\(directory)/state' '\(configPath)' 2>&1; echo \"exit=$?\""])
        #expect(run.hasSuffix("exit=0\n"), "logrotate: \(run)")
        #expect(daemon.waitForLog { $0.contains(#""event":"decision_log.reopened""#) } != nil, "\(daemon.logLines)")
        var after: [String] = []
        for _ in 0..<3 { after.append(try #require(try Curl.request(decide).json?["decisionId"] as? String)) }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let rotated = try String(contentsOfFile: logPath + ".1", encoding: .utf8)
        let current = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(before.allSatisfy { rotated.contains($0) } && after.allSatisfy { current.contains($0) })
        #expect(rotated.split(separator: "\n").count == 3 && current.split(separator: "\n").count == 3)
    }

    @Test("the listening line names the intake database and whether the tokens are set, never their values")
    func listeningLine() throws {
        let token = "L1sten-\(UUID().uuidString)"
        let dataDirectory = TestScratch.root + "/listening-\(UUID().uuidString)"
        let daemon = try DaemonProcess(
            environment: ["NAVPOLICY_INTAKE_TOKEN": token, "NAVPOLICY_DATA_DIR": dataDirectory])
        let line = try #require(daemon.logLines.first { $0.contains(#""event":"listening""#) })
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(fields["intakeDatabase"] as? String == dataDirectory + "/intake.sqlite3")
        #expect(fields["intakeToken"] as? Bool == true)
        #expect(fields["adminToken"] as? Bool == false)
        #expect(!line.contains(token))

        let off = try DaemonProcess(config: #"{"handlers": [], "intake": {"enabled": false}}"#)
        let offLine = try #require(off.logLines.first { $0.contains(#""event":"listening""#) })
        let offFields = try #require(try JSONSerialization.jsonObject(with: Data(offLine.utf8)) as? [String: Any])
        #expect(offFields["intake"] as? Bool == false)
        #expect(offFields["intakeDatabase"] is NSNull, "\(offLine)")
        #expect(offFields["intakeToken"] as? Bool == false)
    }
}
