import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// `decisionLog.redactQueryParameters` (issue 28, item 1) from outside: a secret query value
/// sent through every front end that logs never reaches the decision log, the marker does, and
/// `diff --log` says how many lines it could not replay.
@Suite("decision log redaction, live", .serialized, .tags(.live, .sanitizerRelevant))
struct DecisionLogRedactionLiveTests {
    static func config(origin: TestOrigin, proxy: String) -> String {
        """
        {"defaultDecision": "allow",
         "decisionLog": {"redactQueryParameters": ["code", "Email"]},
         "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
          {"name": "payment", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]},
           "location": "\(origin.baseURL)/checkout?target={url}"},
          {"name": "beta", "type": "cancel", "mode": "shadow", "match": {"pathPrefixes": ["/pay"]},
           "location": "https://beta.example/?from={url}"}
         ],
         "proxy": \(proxy)}
        """
    }

    /// The log once the daemon has stopped (SIGTERM writes what is buffered).
    static func stoppedLog(_ daemon: DaemonProcess, _ path: String) throws -> [String] {
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("GET, POST and batch decide, authz, forward proxy and intake: no secret in the log, every line marked")
    func everyFrontEnd() throws {
        let origin = try TestOrigin()
        let logPath = TestScratch.root + "/redaction-\(UUID().uuidString).ndjson"
        let config = Self.config(origin: origin, proxy: #"{"timeoutMilliseconds": 1500, "allowInternalDestinations": true}"#)
        let daemon = try DaemonProcess(config: config, arguments: ["--decision-log", logPath, "--proxy-listen", "127.0.0.1:0"])
        let base = daemon.baseURL
        // GET: several spellings of the name, repeated, ;-separated, in the fragment.
        let gets = [
            "https://shop.example/cb?code=SECRET101", "https://shop.example/cb?CODE=SECRET102",
            "https://shop.example/cb?%63ode=SECRET103", "https://shop.example/cb?a=1;code=SECRET104&code=SECRET105",
            "https://shop.example/cb#code=SECRET106", "https://shop.example/cb?code+=SECRET107",
            "https://shop.example/pay?code=SECRET108",
        ]
        for url in gets {
            let response = try daemon.decide(url)
            #expect(response.status == 200, "\(url): \(response.body)")
        }
        let post = try Curl.request(
            base + "/v1/decide",
            [
                "-H", "Content-Type: application/json", "-d",
                #"{"url": "https://shop.example/pay?email=SECRET201%40mail.example", "sourceURL": "https://shop.example/cart?code=SECRET202"}"#,
            ])
        #expect(post.status == 200, "\(post.body)")
        #expect(post.body.contains("SECRET201"), "answers are not redacted, only the log")
        let batch = try Curl.request(
            base + "/v1/decide",
            [
                "-H", "Content-Type: application/json", "-d",
                #"{"requests": [{"url": "https://shop.example/a?code=SECRET301"}, {"url": "https://shop.example/logout?Code=SECRET302"}]}"#,
            ])
        #expect(batch.status == 200, "\(batch.body)")
        let authz = try Curl.request(base + "/v1/authz", ["-H", "X-Original-URL: https://shop.example/pay?code=SECRET401"])
        #expect(authz.status == 302 || authz.status == 403, "\(authz.status)")
        let proxied = try Curl.request(
            origin.baseURL + "/echo?code=SECRET501", ["-x", "127.0.0.1:\(daemon.proxyPort())"])
        #expect(proxied.status == 200)
        let intake = try Curl.request(
            base + "/v1/intake",
            ["-H", "Content-Type: application/json", "-d", #"{"url": "https://shop.example/share?code=SECRET601"}"#])
        #expect(intake.status == 201, "\(intake.body)")

        let lines = try Self.stoppedLog(daemon, logPath)
        let log = lines.joined(separator: "\n")
        // The batch logs its first line only: its allowance is its body's size (LogAllowance).
        #expect(lines.count == gets.count + 1 + 1 + 1 + 1 + 1, "\(lines)")
        #expect(log.contains("https://shop.example/a?code=REDACTED"), "the batch's line")
        #expect(!log.contains("SECRET"), "a secret reached the decision log:\n\(log)")
        #expect(lines.allSatisfy { $0.contains(#""redacted":true"#) && $0.contains("REDACTED") }, "\(log)")
        // The {url} location carried the secret percent-encoded: the whole value is replaced.
        #expect(log.contains("/checkout?target=REDACTED"), "\(log)")

        // diff --log counts the lines it cannot replay and does not call them changes.
        let configPath = try BinaryRunner.temporaryFile(config)
        let diff = try BinaryRunner.run(["diff", "--config", configPath, "--against", configPath, "--log", logPath])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(diff.stdout.contains("0 replayed, 0 changed"), "\(diff.stdout)")
        #expect(diff.stdout.contains("\(lines.count) log lines not replayed exactly (\(lines.count) redacted, 0 truncated)"))
        let json = try BinaryRunner.run(
            ["diff", "--config", configPath, "--against", configPath, "--log", logPath, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let notReplayed = try #require(object["notReplayed"] as? [String: Any], "\(json.stdout)")
        #expect(notReplayed["redacted"] as? Int == lines.count)
        #expect(notReplayed["truncated"] as? Int == 0)
    }

    @Test("reverse proxy: the secret in the request target never reaches the log; unlisted names are kept")
    func reverseProxy() throws {
        let origin = try TestOrigin()
        let logPath = TestScratch.root + "/redaction-reverse-\(UUID().uuidString).ndjson"
        let section = #"{"upstream": "\#(origin.baseURL)", "publicOrigin": "https://app.example.com"}"#
        let daemon = try DaemonProcess(
            config: Self.config(origin: origin, proxy: section),
            arguments: ["--decision-log", logPath, "--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let relayed = try Curl.request("http://127.0.0.1:\(port)/echo?page=2&EMAIL=SECRET701%40mail.example")
        #expect(relayed.status == 200)
        #expect(origin.saw("SECRET701"), "the origin gets the request as sent")
        let plain = try Curl.request("http://127.0.0.1:\(port)/echo?page=3")
        #expect(plain.status == 200)
        let lines = try Self.stoppedLog(daemon, logPath)
        #expect(lines.count == 2, "\(lines)")
        #expect(!lines.joined().contains("SECRET"), "\(lines)")
        #expect(lines.first?.contains("page=2&EMAIL=REDACTED") == true, "\(lines)")
        #expect(lines.last?.contains("redacted") == false, "a line with nothing redacted is not marked: \(lines)")
    }

    @Test("a config with a malformed redactQueryParameters is refused with its JSON pointer")
    func invalidConfig() throws {
        let path = try BinaryRunner.temporaryFile(
            #"{"handlers": [], "decisionLog": {"redactQueryParameters": ["code", "", 3]}}"#)
        let result = try BinaryRunner.run(["validate", "--config", path])
        #expect(result.status != 0)
        let text = result.stdout + result.stderr
        #expect(text.contains("/decisionLog/redactQueryParameters/1"), "\(text)")
        #expect(text.contains("/decisionLog/redactQueryParameters/2"), "\(text)")
    }
}
