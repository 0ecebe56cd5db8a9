import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// Outside attack 9 on `POST /v1/policy/analyze`, on the built binary: one run at a time and a
/// run that stops when its client leaves (F6), the steps a run stopped by its bound reports
/// (F7), the UTF-8 charset check of every JSON-body endpoint, and `analyze`'s answers to bad
/// input. Each test fails on the code the attack ran against.
@Suite("analyze endpoint and budget hardening, live", .tags(.live, .sanitizerRelevant))
struct AnalyzeEndpointHardeningTests {
    static let smallBody = #"{"config": {"handlers": [{"name": "all", "type": "cancel"}]}}"#

    /// A 2,000-handler chain using every field (outside attack 7's shape): its reachability
    /// report takes a few seconds in a debug build.
    static func slowBody() -> String {
        #"{"config": \#(PolicyAnalysisAttackLiveTests.everyField(handlers: 2000, seed: 1))}"#
    }

    /// That chain compared with a 300-handler one: the run goes to the 30,000,000-step bound,
    /// about two minutes in a debug build under load (a few seconds in release).
    static func slowerBody() -> String {
        let first = PolicyAnalysisAttackLiveTests.everyField(handlers: 2000, seed: 1)
        let second = PolicyAnalysisAttackLiveTests.everyField(handlers: 300, seed: 2)
        return #"{"config": \#(first), "against": \#(second)}"#
    }

    /// Sends `body` to the analyze endpoint on a raw connection and leaves it waiting.
    static func startRun(_ daemon: DaemonProcess, body: String) throws -> RawConnection {
        let connection = try RawConnection(port: daemon.port)
        connection.send(
            "POST /v1/policy/analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        return connection
    }

    static func post(_ daemon: DaemonProcess, _ path: String, _ body: String, contentType: String = "application/json")
        throws -> Curl.Response
    {
        try Curl.request(
            daemon.baseURL + path, ["--max-time", "120", "-H", "Content-Type: \(contentType)", "--data-binary", body])
    }

    /// Posts small analyses until one is refused while the run has no answer yet
    /// (`answered` false); the refusal, or nil when the run answered (or 60 s passed) first.
    static func refusalWhileRunning(_ daemon: DaemonProcess, answered: () -> Bool) throws -> Curl.Response? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // Each small analysis holds the slot while it runs (a few hundred ms under TSan), and
            // a run that arrives then is the one refused: posting at once and every 50 ms kept
            // the slot busy most of the time, and under TSan all five tries lost that race. So
            // the run gets half a second to take the slot before each post.
            Thread.sleep(forTimeInterval: 0.5)
            if answered() { return nil }
            let answer = try post(daemon, "/v1/policy/analyze", smallBody)
            if answer.status == 503 { return answer }
            #expect(answer.status == 200, "\(answer.body)")
        }
        return nil
    }

    /// Starts runs with `start` until one holds the slot: a small analysis is refused while it
    /// has no answer. A small analysis can take the slot first (then the run is the one refused),
    /// so a run that answered is replaced; nil after ten tries.
    static func holdSlot<Run>(_ daemon: DaemonProcess, start: () throws -> Run, answered: (Run) -> Bool) throws -> (
        run: Run, refusal: Curl.Response
    )? {
        for _ in 0..<10 {
            let run = try start()
            if let refused = try refusalWhileRunning(daemon, answered: { answered(run) }) { return (run, refused) }
        }
        return nil
    }

    /// Starts the slower run on a raw connection, checks that it holds the slot, and returns
    /// with the connection closed: the client left.
    static func startAndLeave(_ daemon: DaemonProcess) throws {
        let held = try holdSlot(daemon, start: { try startRun(daemon, body: slowerBody()) }) { connection in
            let pending = connection.receiveAvailable(maxBytes: 1)
            return !pending.bytes.isEmpty || pending.closed
        }
        #expect(held?.refusal.status == 503, "the run did not hold the slot")
    }

    /// `curl` posting the file `body` to the analyze endpoint, started; its answer on `output`.
    static func curlRun(_ daemon: DaemonProcess, body: String) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", "--max-time", "300", "-H", "Content-Type: application/json", "--data-binary", "@" + body,
            daemon.baseURL + "/v1/policy/analyze",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    static func metric(_ daemon: DaemonProcess, _ name: String) throws -> Int? {
        let text = try Curl.request(daemon.baseURL + "/metrics").body
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.dropFirst(name.count + 1)) }
    }

    @Test("F6: a second analysis while one runs is refused with 503, Retry-After and a count; the slot frees after")
    func oneRunAtATime() throws {
        let daemon = try DaemonProcess()
        let body = try BinaryRunner.temporaryFile(Self.slowBody())
        let held = try #require(
            try Self.holdSlot(daemon, start: { try Self.curlRun(daemon, body: body) }, answered: { !$0.process.isRunning }),
            "no request was refused while a run worked")
        let (running, output) = held.run
        let refused = held.refusal
        #expect(refused.headers["retry-after"] == "2", "\(refused.headers)")
        #expect(refused.headers["content-type"]?.hasPrefix("application/problem+json") == true)
        let problem = try #require(refused.json)
        #expect((problem["type"] as? String)?.hasSuffix("analysis-busy") == true, "\(refused.body)")
        #expect(problem["title"] as? String == "Another analysis or diff is running")
        #expect((problem["detail"] as? String)?.contains("one policy analysis or diff at a time") == true)
        #expect(problem["retryAfter"] as? Int == 2)
        var checker = ResponseChecker(document: try OpenAPIDocument.load())
        try checker.check("POST", "/v1/policy/analyze", 503, refused)

        // The run itself is unaffected and answers in full; then the next one is served.
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        running.waitUntilExit()
        let report = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
        #expect((report?["handlers"] as? [Any])?.count == 2000, "\(String(decoding: answer.prefix(300), as: UTF8.self))")
        #expect(try Self.post(daemon, "/v1/policy/analyze", Self.smallBody).status == 200)
        // At least the refusal above (a run that lost the slot to a small analysis counts too).
        #expect(try Self.metric(daemon, "navpolicyd_policy_analyze_busy_total") ?? 0 >= 1)
        #expect(try Self.metric(daemon, "navpolicyd_policy_analyze_abandoned_total") == 0)
    }

    // Without the watch, the abandoned run kept the slot until its 30,000,000 steps were spent
    // (about two minutes in a debug build); the metric counts only runs the leave stopped.
    @Test("F6: a client that leaves stops its run: the slot frees and the run counts as abandoned")
    func abandonedRunStops() throws {
        let daemon = try DaemonProcess()
        try Self.startAndLeave(daemon)
        let deadline = Date().addingTimeInterval(30)
        var served = false
        while Date() < deadline, !served {
            served = try Self.post(daemon, "/v1/policy/analyze", Self.smallBody).status == 200
            if !served { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(served, "the slot was still held 30 s after the client left")
        #expect(try Self.metric(daemon, "navpolicyd_policy_analyze_abandoned_total") == 1)
    }

    /// 3,200 path patterns: regions alone cost more than the endpoint's 30,000,000 steps, so the
    /// run stops before building them.
    static let overBoundConfig: String = {
        let patterns = (0..<3200).map { "\"/p\($0)/*\"" }.joined(separator: ",")
        return #"{"handlers": [{"name": "many", "type": "cancel", "match": {"pathPatterns": [\#(patterns)]}}]}"#
    }()

    @Test("F7: a run stopped by its step bound reports more steps than the bound, never 0")
    func stepsPastTheBound() throws {
        let daemon = try DaemonProcess()
        let answer = try Self.post(daemon, "/v1/policy/analyze", #"{"config": \#(Self.overBoundConfig)}"#)
        #expect(answer.status == 200, "\(answer.body.prefix(300))")
        let steps = try #require(answer.json?["steps"] as? Int)
        #expect(steps > 30_000_000, "a run the bound stopped reported \(steps) steps")
        #expect(steps <= 30_000_000 + PolicyAnalysisAttackLiveTests.overshoot, "and only a little over it: \(steps)")
        let handlers = try #require(answer.json?["handlers"] as? [[String: Any]])
        #expect((handlers.first?["unknown"] as? String)?.contains("ran out of steps") == true, "\(handlers)")

        // The CLI prints the same `steps`, and --max-steps sets its bound.
        let config = try BinaryRunner.temporaryFile(Self.overBoundConfig)
        let cli = try BinaryRunner.run(["analyze", "--config", config, "--max-steps", "1000", "--format", "json"])
        #expect(cli.status == 3, "\(cli.stderr)")
        let printed = try #require(
            (try? JSONSerialization.jsonObject(with: Data(cli.stdout.utf8))) as? [String: Any], "\(cli.stdout)")
        #expect((printed["steps"] as? Int ?? 0) > 1000, "\(cli.stdout.prefix(300))")
        let small = try BinaryRunner.run([
            "analyze", "--config", "config/navpolicy.json", "--max-steps", "50", "--format", "json",
        ])
        #expect(small.status == 3, "\(small.stdout)")
        #expect(small.stdout.contains("ran out of steps"), "\(small.stdout.prefix(300))")
        let smallSteps = (try? JSONSerialization.jsonObject(with: Data(small.stdout.utf8))) as? [String: Any]
        #expect((smallSteps?["steps"] as? Int ?? 0) > 50, "\(small.stdout.prefix(300))")
        let unbounded = try BinaryRunner.run(["analyze", "--config", "config/navpolicy.json", "--format", "json"])
        #expect(unbounded.status == 0, "\(unbounded.stdout)")
        #expect(unbounded.stdout.contains(#""steps":"#))
        let compared = try BinaryRunner.run(
            ["analyze", "--config", config, "--against", config, "--max-steps", "1000", "--format", "json"])
        #expect(compared.status == 3 && compared.stdout.contains(#""equivalent":null"#), "\(compared.stdout.prefix(300))")
        let queried = try BinaryRunner.run(
            ["analyze", "--config", config, "--can-reach", "allow", "--max-steps", "1000", "--format", "json"])
        #expect(queried.status == 3 && queried.stdout.contains("ran out of steps"), "\(queried.stdout.prefix(300))")
        for output in [compared.stdout, queried.stdout] {
            let object = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
            #expect((object?["steps"] as? Int ?? 0) > 1000, "\(output.prefix(300))")
        }
    }

    @Test("every JSON-body endpoint refuses a charset other than UTF-8 with 415, as analyze does")
    func utf8Only() throws {
        let daemon = try DaemonProcess()
        let bodies = [
            "/v1/policy/diff": #"{"config": {"handlers": []}, "requests": [{"url": "https://a.example/"}]}"#,
            "/v1/decide": #"{"url": "https://a.example/"}"#,
            "/v1/policy/analyze": Self.smallBody,
        ]
        for (path, body) in bodies.sorted(by: { $0.key < $1.key }) {
            for charset in ["latin1", "\"ISO-8859-1\"", "utf-16"] {
                let refused = try Self.post(daemon, path, body, contentType: "application/json; charset=\(charset)")
                #expect(refused.status == 415, "\(path) \(charset): \(refused.body)")
                #expect(refused.headers["content-type"]?.hasPrefix("application/problem+json") == true)
                #expect(refused.headers["accept-post"] == "application/json")
                #expect(refused.body.contains("unsupported-media-type") && refused.body.contains("only UTF-8"), "\(refused.body)")
            }
            for accepted in ["application/json", "application/json; charset=utf-8", "Application/JSON;Charset=\"UTF-8\""] {
                let answer = try Self.post(daemon, path, body, contentType: accepted)
                #expect(answer.status == 200, "\(path) \(accepted): \(answer.body.prefix(200))")
            }
        }
    }

    @Test("analyze answers bad input with exit 2 and a message that names the flag, once")
    func cliBadInput() throws {
        let config = "config/navpolicy.json"
        let missing = TestScratch.path("missing", suffix: ".json")
        let invalid = try BinaryRunner.temporaryFile(#"{"handlers": [{"name": "x", "type": "nosuch"}]}"#)
        let cases: [([String], String)] = [
            (["--config", config, "--against", missing], "navpolicyd analyze: --against \(missing): no such file"),
            (["--config", missing], "navpolicyd analyze: --config \(missing): no such file"),
            (["--config", config, "--against", invalid], "navpolicyd analyze: --against \(invalid) is invalid (1 error):"),
            (["--config", invalid], "/handlers/0/type: unknown handler type \"nosuch\""),
            (["--config", config, "--format", "xml"], "navpolicyd analyze: --format takes text or json, not 'xml'"),
            (["--config", config, "--can-reach", "bogus"], "no handler is named \"bogus\""),
            (["--config", config, "--can-reach", ""], "navpolicyd analyze: --can-reach takes allow, cancel or a handler name"),
            (["--config", config, "--compare", "foo", "--against", config], "navpolicyd analyze: --compare takes \"handler\""),
            (["--config", config, "--compare", "handler"], "navpolicyd analyze: --compare needs --against"),
            (["--config", config, "--host", "a.example"], "navpolicyd analyze: --host, --path-pattern"),
            (["--config", config, "--can-reach", "allow", "--match", "[1]"], "navpolicyd analyze: --match takes a JSON object"),
            (["--config", config, "--can-reach", "allow", "--match", #"{"hosts": 5}"#], "/match/hosts: expected an array"),
            (["--config", config, "--can-reach", "allow", "--path-pattern", "x"], "must start with \"/\""),
            (["--config", config, "--max-steps", "0"], "--max-steps"),
            (["--config", config, "--against", config, "--can-reach", "allow"], "at most one of --against or --can-reach"),
        ]
        for (arguments, message) in cases {
            let result = try BinaryRunner.run(["analyze"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("navpolicyd analyze: navpolicyd analyze"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("NAVPOLICY_CONFIG"), "analyze --config is required: \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
    }
}
