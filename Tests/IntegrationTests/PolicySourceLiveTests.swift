import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// Issue 45, item 5, from outside: two real daemons, one publishing its signed bundle at
/// `/v1/policy/bundle` (docs/bundles.md), one pulling it with `policySource`; scripted origins
/// for the answers a publisher never gives (an older bundle, a wrong signature, an expired one,
/// a server that drips).
@Suite("policy source, live", .serialized, .tags(.live))
struct PolicySourceLiveTests {
    typealias Key = BundleTrustLiveTests.Key

    static func pullerConfig(url: String, key: Key, cacheFile: String, extra: String = "") -> String {
        """
        {"policySource":{"url":"\(url)","trustedKeys":{"\(key.keyId)":"\(key.publicKeyBase64)"},
          "pollIntervalSeconds":5,"cacheFile":"\(cacheFile)"\(extra)},
         "server":{"watchConfig":false},"intake":{"enabled":false}}
        """
    }

    static func decision(_ daemon: DaemonProcess, _ path: String) throws -> String? {
        try daemon.decide("https://app.example.com" + path).json?["decision"] as? String
    }

    static func status(_ daemon: DaemonProcess) throws -> [String: Any] {
        try #require(try Curl.request(daemon.baseURL + "/v1/status").json?["policySource"] as? [String: Any])
    }

    static func lastFailureReason(_ daemon: DaemonProcess) throws -> String? {
        (try status(daemon)["lastFailure"] as? [String: Any])?["reason"] as? String
    }

    /// The value of the metric line starting with `series ` (name and labels); nil when absent.
    static func metric(_ daemon: DaemonProcess, _ series: String) throws -> Double? {
        let body = try Curl.request(daemon.baseURL + "/metrics").body
        for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    /// Every poll counted so far, whatever its result.
    static func polls(_ daemon: DaemonProcess) throws -> Double {
        let body = try Curl.request(daemon.baseURL + "/metrics").body
        return body.split(separator: "\n").filter { $0.hasPrefix("navpolicyd_policy_source_polls_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }

    /// Waits (up to `seconds`, polling every 50 ms) for `condition`; whether it came true.
    static func eventually(_ seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    static func stop(_ daemon: DaemonProcess) {
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test(
        "a new version propagates within one poll; the publisher down changes only the metrics; a restart decides from cacheFile")
    func propagatesAndSurvivesThePublisher() throws {
        let key = try Key()
        let publisher = try DaemonProcess(config: BundleTrustLiveTests.config(key: key.path))
        let cacheFile = TestScratch.path("policy-source-cache", suffix: ".bundle")
        let config = Self.pullerConfig(url: publisher.baseURL + "/v1/policy/bundle", key: key, cacheFile: cacheFile)
        let puller = try DaemonProcess(config: config)
        #expect(try Self.eventually { try Curl.request(puller.baseURL + "/readyz").status == 200 })
        #expect(try Self.decision(puller, "/logout") == "cancel")
        #expect(try Self.decision(puller, "/help") == "allow")
        let first = try BundleTrustLiveTests.stamp(try BundleTrustLiveTests.served(publisher).body)
        #expect(try Self.metric(puller, "navpolicyd_policy_source_version") == Double(first.policyVersion))

        // The publisher's next version: taken by the first poll after it (a poll in flight
        // during the reload may still see the old one, hence at most two).
        let reload = try BundleTrustLiveTests.reload(
            publisher, to: BundleTrustLiveTests.config(key: key.path, handlers: BundleTrustLiveTests.helpHandler))
        #expect(reload.status == 200, "\(reload.body)")
        let second = try BundleTrustLiveTests.stamp(try BundleTrustLiveTests.served(publisher).body)
        let pollsBefore = try Self.polls(puller)
        #expect(try Self.eventually { try Self.decision(puller, "/help") == "cancel" })
        #expect(try Self.polls(puller) - pollsBefore <= 2)
        #expect(try Self.metric(puller, "navpolicyd_policy_source_version") == Double(second.policyVersion))
        // The puller relays the publisher's bundle as it was signed.
        #expect(try BundleTrustLiveTests.served(puller).body == (try BundleTrustLiveTests.served(publisher).body))

        // The publisher goes away: the pulled policy keeps deciding, readiness stays, the metrics say so.
        Self.stop(publisher)
        let before = try Self.metric(puller, "navpolicyd_policy_source_last_success_timestamp_seconds")
        let poll = try Curl.request(puller.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(poll.status != 200 || poll.json?["result"] as? String == "failed", "\(poll.body)")
        // The file is fine: a failed poll names the source, and the file's gauge stays 1.
        #expect(poll.body.contains("policy source") && !poll.body.contains("config file is invalid"), "\(poll.body)")
        #expect(try Self.metric(puller, "navpolicyd_policy_config_valid") == 1)
        #expect(try Self.metric(puller, #"navpolicyd_policy_source_failures_total{reason="unreachable"}"#) ?? 0 >= 1)
        #expect(try Self.lastFailureReason(puller) == "unreachable")
        let page = try Curl.request(puller.baseURL + "/", ["-H", "Accept: text/html"]).body
        #expect(page.contains(#"<dd id="policy-source-last-failure">"#) && page.contains(": unreachable: "), "\(page)")
        #expect(try Self.metric(puller, "navpolicyd_policy_source_last_success_timestamp_seconds") == before)
        #expect(try Curl.request(puller.baseURL + "/readyz").status == 200)
        #expect(try Self.decision(puller, "/help") == "cancel")

        // A restart while it is still down decides from the last good bundle on disk.
        Self.stop(puller)
        let restarted = try DaemonProcess(config: config)
        #expect(try Curl.request(restarted.baseURL + "/readyz").status == 200)
        #expect(try Self.decision(restarted, "/help") == "cancel")
        #expect(try Self.status(restarted)["origin"] as? String == "cacheFile")
        #expect(try Self.metric(restarted, "navpolicyd_policy_source_version") == Double(second.policyVersion))
    }

    @Test("an older, a wrongly signed and an expired bundle are refused and reported; the held one decides")
    func refusals() throws {
        let key = try Key()
        let publisher = try DaemonProcess(config: BundleTrustLiveTests.config(key: key.path))
        let old = try BundleTrustLiveTests.served(publisher)
        _ = try BundleTrustLiveTests.reload(
            publisher, to: BundleTrustLiveTests.config(key: key.path, handlers: BundleTrustLiveTests.helpHandler))
        let current = try BundleTrustLiveTests.served(publisher)
        let cacheFile = TestScratch.path("policy-source-cache", suffix: ".bundle")
        let first = try DaemonProcess(
            config: Self.pullerConfig(url: publisher.baseURL + "/v1/policy/bundle", key: key, cacheFile: cacheFile))
        #expect(try Self.eventually { try Self.decision(first, "/help") == "cancel" })
        Self.stop(first)
        Self.stop(publisher)

        // An expired bundle, validly signed (`--allow-expired` writes the fixture).
        let configPath = try BinaryRunner.temporaryFile(
            BundleTrustLiveTests.config(key: key.path, handlers: BundleTrustLiveTests.helpHandler))
        let expiredPath = TestScratch.path("policy-source-expired", suffix: ".json")
        let now = Int(Date().timeIntervalSince1970)
        let written = try BinaryRunner.run([
            "bundle", "--config", configPath, "--sign", key.path, "--issued-at", String(now - 7200), "--lifetime", "3600",
            "--policy-version", String(now + 1_000_000), "--allow-expired", "--output", expiredPath,
        ])
        #expect(written.status == 0, "\(written.stderr)")
        let expiredSignature = try String(contentsOfFile: expiredPath + ".sig", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let cases: [(body: String, signature: String, reason: String)] = [
            (try BundleTrustLiveTests.file(old.body), old.signature, "older-version"),
            (try BundleTrustLiveTests.file(current.body), old.signature, "bad-signature"),
            (expiredPath, expiredSignature, "expired"),
        ]
        for (body, signature, reason) in cases {
            let origin = try BundleOrigin(body: body, signature: signature, etag: nil)
            let puller = try DaemonProcess(
                config: Self.pullerConfig(url: origin.baseURL + "/bundle", key: key, cacheFile: cacheFile))
            #expect(try Self.eventually { try Self.lastFailureReason(puller) != nil }, "\(reason)")
            #expect(try Self.lastFailureReason(puller) == reason)
            #expect(try Self.metric(puller, "navpolicyd_policy_source_failures_total{reason=\"\(reason)\"}") == 1)
            // The last good bundle (from cacheFile) still decides.
            #expect(try Self.decision(puller, "/help") == "cancel", "\(reason)")
            #expect(try Self.status(puller)["revision"] as? String == String(current.etag.dropFirst().dropLast()))
            Self.stop(puller)
        }
    }

    @Test("not ready before the first good policy; a dripping server is cut off at timeoutSeconds")
    func notReadyBeforeTheFirstPolicy() throws {
        let key = try Key()
        let body = TestScratch.path("policy-source-drip", suffix: ".json")
        try Data(repeating: 0x20, count: 4096).write(to: URL(fileURLWithPath: body))
        let origin = try BundleOrigin(body: body, signature: nil, etag: nil, extraArguments: ["--drip-every", "0.2"])
        let cacheFile = TestScratch.path("policy-source-cache", suffix: ".bundle")
        let puller = try DaemonProcess(
            config: Self.pullerConfig(
                url: origin.baseURL + "/bundle", key: key, cacheFile: cacheFile, extra: #","timeoutSeconds":1"#))
        #expect(try Curl.request(puller.baseURL + "/readyz").status == 503)
        #expect(try puller.decide("https://app.example.com/").status == 503)
        #expect(try Self.eventually { try Self.lastFailureReason(puller) != nil })
        #expect(try Self.lastFailureReason(puller) == "timeout")
        #expect(try Curl.request(puller.baseURL + "/readyz").status == 503)
        #expect(try Self.metric(puller, "navpolicyd_policy_source_version") == 0)
    }

    @Test("validate --strict passes a pulling config: its empty chain is by design, not a warning")
    func validatePullingConfig() throws {
        let key = try Key()
        let pulling = try BinaryRunner.temporaryFile(
            Self.pullerConfig(url: "http://127.0.0.1:9/", key: key, cacheFile: "/tmp/x.bundle"))
        let result = try BinaryRunner.run(["validate", "--strict", "--config", pulling])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("chain is empty"), "\(result.stdout)\(result.stderr)")
    }

    @Test("a config with both handlers and policySource is refused: validate exits 1 as for any invalid config, serve 2")
    func handlersBesidePolicySource() throws {
        let key = try Key()
        let config = """
            {"handlers":[],"policySource":{"url":"http://127.0.0.1:9/","trustedKeys":{"\(key.keyId)":"\(key.publicKeyBase64)"},
             "cacheFile":"/tmp/x.bundle"}}
            """
        let path = try BinaryRunner.temporaryFile(config)
        for (command, status) in [(["validate"], Int32(1)), (["serve", "--listen", "127.0.0.1:0"], Int32(2))] {
            let result = try BinaryRunner.run(command + ["--config", path])
            #expect(result.status == status, "\(command)")
            #expect(
                result.stderr.contains("/handlers: a config has either handlers or policySource, not both"), "\(result.stderr)")
        }
        // A pulling config has no chain to decide or publish with offline: refused, not "allow".
        let pulling = try BinaryRunner.temporaryFile(
            Self.pullerConfig(url: "http://127.0.0.1:9/", key: key, cacheFile: "/tmp/x.bundle"))
        for command in [["check", "https://app.example.com/"], ["bundle"]] {
            let result = try BinaryRunner.run(command + ["--config", pulling])
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.contains("/policySource: this config pulls its chain"), "\(result.stderr)")
        }
    }
}
