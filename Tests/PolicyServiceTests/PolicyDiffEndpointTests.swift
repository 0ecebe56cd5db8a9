import Foundation
import HTTPServer
import Testing

@testable import PolicyService

@Suite("policy diff and shadow decisions in-process")
struct PolicyDiffEndpointTests {
    static let json = [("Content-Type", "application/json")]

    @Test("diff over posted requests: what the candidate changes, grouped by handler")
    func postedRequests() async throws {
        let harness = try ServiceHarness()
        let body = """
            {"config": {"handlers": [{"name": "about", "type": "about", "match": {"paths": ["/about"]}}]},
             "requests": [{"url": "https://a.example/logout"}, {"url": "https://a.example/about"},
                          {"url": "https://a.example/home"}]}
            """
        let report = await harness.send("POST", "/v1/policy/diff", headers: Self.json, body: body)
        #expect(report.status == 200)
        #expect(report.object["source"]?.stringValue == "posted")
        #expect(report.object["total"]?.integerValue == 3)
        #expect(report.object["changed"]?.integerValue == 1)
        let group = report.object["groups"]?.arrayValue?.first
        #expect(group?["from"]?.stringValue == "logout")
        #expect(group?["count"]?.integerValue == 1)
        #expect(harness.store.snapshot?.policy.links.count == 2, "nothing is applied")
    }

    @Test("diff without requests replays the decision log's recent window")
    func decisionLogWindow() async throws {
        let harness = try ServiceHarness()
        for path in ["/logout", "/home", "/about"] {
            _ = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example" + path)
        }
        // The log is written by a background queue: wait until the three lines are there.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline,
            ((try? String(contentsOfFile: harness.decisionLogPath, encoding: .utf8)) ?? "").split(separator: "\n").count < 3
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let report = await harness.send(
            "POST", "/v1/policy/diff", headers: Self.json, body: #"{"config": {"defaultDecision": "cancel"}}"#)
        #expect(report.status == 200, "\(report.text)")
        #expect(report.object["source"]?.stringValue == "decisionLog")
        #expect(report.object["total"]?.integerValue == 3)
        #expect(report.object["changed"]?.integerValue == 3)
    }

    @Test(
        "diff error paths: 415, 400, 422, and 401 with an admin token",
        arguments: [
            ([("Content-Type", "text/plain")], #"{"config":{}}"#, 415, "unsupported-media-type"),
            (json, "{", 400, "malformed-json"),
            (json, #"{"config":{},"config":{}}"#, 400, "malformed-json"),
            (json, #"{"requests":[]}"#, 400, "invalid-request"),
            (json, #"{"config":{},"examples":1000}"#, 400, "invalid-request"),
            (json, #"{"config":{},"requests":[{"url":"https://a/","nope":1}]}"#, 400, "invalid-request"),
            (
                json, #"{"config":{},"requests":[{"url":"https://a/","sourceURL":"\#(String(repeating: "a", count: 40_000))"}]}"#,
                400, "invalid-request"
            ),
            (json, #"{"config":{},"requests":[{"url":"http://[::1/"}]}"#, 400, "invalid-request"),
            (json, #"{"config":{"handlers":[{"type":"nope"}]}}"#, 422, "invalid-config"),
        ])
    func errors(headers: [(String, String)], body: String, status: Int, kind: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("POST", "/v1/policy/diff", headers: headers, body: body)
        #expect(response.status.code == status, "\(response.text)")
        #expect(response.problemKind == kind)
        let guarded = try ServiceHarness(adminToken: serviceTestToken)
        let refused = await guarded.send("POST", "/v1/policy/diff", headers: Self.json, body: #"{"config":{}}"#)
        #expect(refused.status == 401)
    }

    @Test("shadow handlers are counted in navpolicyd_shadow_decisions_total and never decide")
    func shadowMetric() async throws {
        let harness = try ServiceHarness(
            config: """
                {"handlers": [{"name": "trial", "type": "cancel", "mode": "shadow", "match": {"paths": ["/beta"]}}]}
                """)
        let decided = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example%2Fbeta")
        #expect(decided.object["decision"]?.stringValue == "allow")
        let metrics = await harness.metricsText()
        #expect(metrics.contains(#"navpolicyd_shadow_decisions_total{handler="trial",decision="cancel"} 1"#), "\(metrics)")
        #expect(metrics.contains("# TYPE navpolicyd_shadow_decisions_total counter"))
    }
}
