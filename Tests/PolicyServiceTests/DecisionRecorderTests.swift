import Foundation
import JSONSupport
import NavigationPolicy
import TestSelection
import Testing

@testable import PolicyService

@Suite("decision recorder and metrics", .tags(.sanitizerRelevant))
struct DecisionRecorderTests {
    @Test("the log line written with JSONWriter is byte for byte the documented object")
    func logLineShape() throws {
        let snapshot = try PolicySnapshot.build(from: Array(serviceTestConfig.utf8)).get()
        var navigation = NavigationRequest(url: "https://a.example/logout?q=\"x\"", method: "POST", sourceURL: nil)
        navigation.navigationType = .formSubmitted
        let decision = try snapshot.policy.decide(navigation, explain: true)
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let line = DecisionRecorder.logLine(
            decision, for: navigation, id: DecisionID(prefix: 0xabcd, sequence: 1),
            origin: DecisionOrigin(.extAuthzGRPC, clientAddress: "203.0.113.7", requestID: "r-1"), revision: "sha256:r",
            redaction: QueryRedaction(names: []), at: time)
        // The object as the decision log documents it, built as a tree and serialized.
        var logged = decision
        logged.trace = nil
        var expected: JSONObject = [
            "time": .string(Timestamp.iso8601(time)), "decisionId": .string("0000abcd-000000000001"),
            "frontend": .string("ext_authz_grpc"), "clientAddress": .string("203.0.113.7"), "requestId": .string("r-1"),
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
                        metrics.recordDecision(
                            handler: task % 2 == 0 ? "a" : nil, decision: "allow", action: nil, frontEnd: .decide)
                        metrics.recordRequest(endpoint: "/v1/decide", status: 200, seconds: 0.0002)
                    }
                }
            }
        }
        let text = metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil)
        #expect(text.contains(#"navpolicyd_decisions_total{handler="a",decision="allow",action="",frontend="decide"} 4000"#))
        #expect(text.contains(#"navpolicyd_decisions_total{handler="",decision="allow",action="",frontend="decide"} 4000"#))
        #expect(text.contains(#"navpolicyd_http_requests_total{endpoint="/v1/decide",code="200"} 8000"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="0.00025"} 8000"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_count{endpoint="/v1/decide"} 8000"#))
    }

    @Test("atomic endpoint counters and the locked fallback render as one series, sum included")
    func atomicAndFallbackCounters() {
        let metrics = Metrics(version: "test")
        // 200 has an atomic slot, 299 has none (fallback); "/custom" is no route label (fallback).
        // Binary fractions, so the sum prints exactly.
        metrics.recordRequest(endpoint: "/v1/decide", status: 200, seconds: 0.25)
        metrics.recordRequest(endpoint: "/v1/decide", status: 200, seconds: 0.5)
        metrics.recordRequest(endpoint: "/v1/decide", status: 299, seconds: 7)
        metrics.recordRequest(endpoint: "/custom", status: 200, seconds: 0.5)
        let text = metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil)
        #expect(text.contains(#"navpolicyd_http_requests_total{endpoint="/v1/decide",code="200"} 2\#n"#))
        #expect(text.contains(#"navpolicyd_http_requests_total{endpoint="/v1/decide",code="299"} 1\#n"#))
        #expect(text.contains(#"navpolicyd_http_requests_total{endpoint="/custom",code="200"} 1\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="0.25"} 1\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="0.5"} 2\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="5.0"} 2\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="+Inf"} 3\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_count{endpoint="/v1/decide"} 3\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_sum{endpoint="/v1/decide"} 7.75\#n"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_count{endpoint="/custom"} 1\#n"#))
        // Every route template has an atomic series, and no two share one.
        for route in RouteDeclaration.all { #expect(Metrics.endpointIndex(route.path) != nil) }
        #expect(Set(Metrics.endpointLabels).count == Metrics.endpointLabels.count)
    }
}
