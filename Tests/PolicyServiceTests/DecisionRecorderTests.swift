import Foundation
import JSONSupport
import NavigationPolicy
import Testing

@testable import PolicyService

@Suite("decision recorder and metrics")
struct DecisionRecorderTests {
    @Test("the log line written with JSONWriter is byte for byte the documented object")
    func logLineShape() throws {
        let snapshot = try PolicySnapshot.build(from: Array(serviceTestConfig.utf8)).get()
        var navigation = NavigationRequest(url: "https://a.example/logout?q=\"x\"", method: "POST", sourceURL: nil)
        navigation.navigationType = .formSubmitted
        let decision = try snapshot.policy.decide(navigation, explain: true)
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let line = DecisionRecorder.logLine(
            decision, for: navigation, id: "0000abcd-000000000001", revision: "sha256:r", at: time)
        // The object as the decision log documents it, built as a tree and serialized.
        var logged = decision
        logged.trace = nil
        var expected: JSONObject = [
            "time": .string(Timestamp.iso8601(time)), "decisionId": .string("0000abcd-000000000001"),
            "request": .object([
                "url": .string(navigation.url), "method": .string("POST"), "navigationType": .string("formSubmitted"),
                "targetFrame": .string(navigation.targetFrame.rawValue), "sourceURL": .null,
            ]),
        ]
        expected.append("decision", .object(logged.jsonObject))
        expected.append("handler", .string("logout"))
        expected.append("revision", .string("sha256:r"))
        #expect(
            String(decoding: line, as: UTF8.self) == String(decoding: JSONValue.object(expected).serializedBytes, as: UTF8.self))
    }

    @Test("counters bumped from many threads at once add up in one scrape")
    func stripedCounters() async throws {
        let metrics = Metrics(version: "test")
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        metrics.recordDecision(handler: task % 2 == 0 ? "a" : nil, decision: "allow", action: nil)
                        metrics.recordRequest(endpoint: "/v1/decide", status: 200, seconds: 0.0002)
                    }
                }
            }
        }
        let text = metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil)
        #expect(text.contains(#"navpolicyd_decisions_total{handler="a",decision="allow",action=""} 4000"#))
        #expect(text.contains(#"navpolicyd_decisions_total{handler="",decision="allow",action=""} 4000"#))
        #expect(text.contains(#"navpolicyd_http_requests_total{endpoint="/v1/decide",code="200"} 8000"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="0.00025"} 8000"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_count{endpoint="/v1/decide"} 8000"#))
    }
}
