import Foundation
import TestSelection
import Testing

/// Issue 28, item 4 from outside: the decision-time histogram and the policy-load timestamp in
/// `/metrics` (checked by promtool), and a status page an operator can read: latency and error
/// figures, intake health in words, no `allow 0` row on a handler that can only cancel.
@Suite("operator metrics and status page, live", .serialized, .tags(.live, .sanitizerRelevant))
struct OperatorMetricsLiveTests {
    static let config = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
          {"name": "open", "type": "allow", "match": {"paths": ["/open"]}}
        ]}
        """

    @Test("navpolicyd_decision_duration_seconds counts each front end's decisions; promtool accepts the output")
    func decisionHistogram() throws {
        let daemon = try DaemonProcess(config: Self.config)
        for path in ["/logout", "/open", "/home"] { #expect(try daemon.decide("https://a.example" + path).status == 200) }
        let batch = try Curl.request(
            daemon.baseURL + "/v1/decide",
            [
                "-H", "Content-Type: application/json", "-d",
                #"{"requests": [{"url": "https://a.example/x"}, {"url": "https://a.example/y"}]}"#,
            ])
        #expect(batch.status == 200)
        #expect(try Curl.request(daemon.baseURL + "/v1/authz", ["-H", "X-Original-URL: https://a.example/logout"]).status == 403)
        let intake = try Curl.request(
            daemon.baseURL + "/v1/intake", ["-H", "Content-Type: application/json", "-d", #"{"url": "https://a.example/s"}"#])
        #expect(intake.status == 201, "\(intake.body)")

        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        func sample(_ prefix: String) -> Double? { VisibilityTests.sample(metrics, prefix) }
        #expect(metrics.contains("# TYPE navpolicyd_decision_duration_seconds histogram"), "\(metrics)")
        #expect(sample(#"navpolicyd_decision_duration_seconds_count{frontend="decide"}"#) == 5)
        #expect(sample(#"navpolicyd_decision_duration_seconds_count{frontend="authz"}"#) == 1)
        #expect(sample(#"navpolicyd_decision_duration_seconds_count{frontend="intake"}"#) == 1)
        #expect(sample(#"navpolicyd_decision_duration_seconds_count{frontend="proxy"}"#) == 0)
        #expect(sample(#"navpolicyd_decision_duration_seconds_bucket{frontend="decide",le="+Inf"}"#) == 5)
        // Sub-millisecond buckets: a decision takes microseconds.
        #expect(metrics.contains(#"navpolicyd_decision_duration_seconds_bucket{frontend="decide",le="1e-06"}"#))
        #expect((sample(#"navpolicyd_decision_duration_seconds_sum{frontend="decide"}"#) ?? -1) > 0)
        let loaded = try #require(sample("navpolicyd_policy_loaded_timestamp_seconds"), "\(metrics)")
        #expect(abs(loaded - Date().timeIntervalSince1970) < 600)

        let file = try BinaryRunner.temporaryFile(metrics)
        let lint = try Curl.standardOutput(of: "/bin/sh", ["-c", "promtool check metrics < '\(file)' 2>&1; echo \"exit=$?\""])
        #expect(lint.hasSuffix("exit=0\n"), "promtool: \(lint)")
    }

    @Test("/v1/status and /status: latency p50/p99, error figures, readable intake health, no allow row on cancel-only")
    func statusFigures() throws {
        let daemon = try DaemonProcess(config: Self.config)
        for path in ["/logout", "/logout", "/open"] { #expect(try daemon.decide("https://a.example" + path).status == 200) }
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=not%20a%20url").status == 400)

        func decideFigures() throws -> [String: Any] {
            let report = try #require(try Curl.request(daemon.baseURL + "/v1/status", ["-H", "Accept: application/json"]).json)
            let latency = try #require(report["latency"] as? [String: Any], "\(report)")
            let decisions = try #require(latency["decisions"] as? [[String: Any]])
            #expect(decisions.first { $0["frontend"] as? String == "authz" }?["p50Seconds"] is NSNull)
            return try #require(decisions.first { $0["frontend"] as? String == "decide" })
        }
        // Three decisions are too few for a median, let alone a p99: neither is shown.
        let few = try decideFigures()
        #expect(few["count"] as? Int == 3)
        #expect(few["p50Seconds"] is NSNull && few["p99Seconds"] is NSNull, "\(few)")
        // A batch of 100 more: enough for both (p50 from 20, p99 from 100 observations).
        let entries = (0..<100).map { #"{"url": "https://a.example/b\#($0)"}"# }.joined(separator: ",")
        let batch = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "-d", #"{"requests": ["# + entries + "]}"])
        #expect(batch.status == 200)
        let decide = try decideFigures()
        #expect(decide["count"] as? Int == 103)
        let p50 = try #require(decide["p50Seconds"] as? Double, "\(decide)")
        let p99 = try #require(decide["p99Seconds"] as? Double, "\(decide)")
        #expect(p50 > 0 && p50 <= p99 && p99 <= 0.01, "\(decide)")
        let report = try #require(try Curl.request(daemon.baseURL + "/v1/status", ["-H", "Accept: application/json"]).json)
        let latency = try #require(report["latency"] as? [String: Any], "\(report)")
        let http = try #require(latency["http"] as? [[String: Any]])
        #expect(http.contains { $0["endpoint"] as? String == "/v1/decide" && ($0["count"] as? Int ?? 0) >= 4 }, "\(http)")
        let errors = try #require(report["errors"] as? [String: Any])
        #expect(errors["http4xx"] as? Int == 1, "\(errors)")
        #expect(errors["http5xx"] as? Int == 0)

        let page = try Curl.request(daemon.baseURL + "/status", ["-H", "Accept: text/html"])
        #expect(page.status == 200)
        let html = page.body
        #expect(html.contains(#"<dd id="intake-health">ok</dd>"#), "intake health in words, not JSON")
        #expect(!html.contains(#"{&quot;status&quot;"#) && !html.contains(#"{"status""#))
        #expect(html.contains(#"<section id="latency"><h2>Latency</h2>"#))
        #expect(html.contains("<th>decide in chain: decide</th><td>103</td>"), "\(html)")
        #expect(html.contains("<th>decide in chain: authz</th><td>0</td><td>–</td><td>–</td>"), "\(html)")
        #expect(html.contains(#"<dt>HTTP 4xx answers</dt><dd id="errors-http4xx">1</dd>"#))
        // The logout handler can only cancel: its counts show no allow row; "open" no cancel row.
        let logout = try #require(Self.item(html, handler: "logout"))
        #expect(logout.contains(#"<tr class="cancel"><th>cancel</th><td class="since-start">2</td>"#))
        #expect(!logout.contains(#"<tr class="allow">"#), "\(logout)")
        let open = try #require(Self.item(html, handler: "open"))
        #expect(open.contains(#"<tr class="allow"><th>allow</th><td class="since-start">1</td>"#))
        #expect(!open.contains(#"<tr class="cancel">"#), "\(open)")
    }

    @Test("the page's own script renders the same figures (headless Chromium)")
    func scriptRendering() throws {
        let daemon = try DaemonProcess(config: Self.config)
        for path in ["/logout", "/open"] { #expect(try daemon.decide("https://a.example" + path).status == 200) }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-ops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let dom = try Curl.standardOutput(
            of: "/usr/bin/chromium",
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=\(profile.path)", "--timeout=15000", "--virtual-time-budget=4000", "--dump-dom",
                daemon.baseURL + "/",
            ])
        #expect(dom.contains(#"<span id="refresh-state">live</span>"#), "the script did not run: \(dom)")
        #expect(dom.contains(#"<dd id="intake-health">ok</dd>"#), "\(dom)")
        #expect(dom.contains("<th>decide in chain: decide</th><td>2</td>"), "\(dom)")
        #expect(dom.contains(#"<dd id="errors-http5xx">0</dd>"#))
        let logout = try #require(Self.item(dom, handler: "logout"))
        #expect(!logout.contains(#"<tr class="allow">"#), "\(logout)")
    }

    /// The chain item of `handler` on the page, up to its closing tag.
    static func item(_ html: String, handler: String) -> Substring? {
        guard let start = html.range(of: #"data-handler="\#(handler)">"#) else { return nil }
        let rest = html[start.upperBound...]
        return rest[..<(rest.range(of: "</li>")?.lowerBound ?? rest.endIndex)]
    }
}
