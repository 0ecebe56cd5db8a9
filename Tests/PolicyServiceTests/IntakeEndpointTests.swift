import Foundation
import HTTPServer
import JSONSupport
import TestSelection
import Testing

@testable import PolicyService

@Suite("share intake in-process", .tags(.sanitizerRelevant))
struct IntakeServiceTests {
    static let json = [("Content-Type", "application/json")]

    @Test("POST stores (201 + Location), a repeat is 200, GET lists and shows, DELETE removes")
    func lifecycle() async throws {
        let harness = try ServiceHarness()
        let created = await harness.send("POST", "/v1/intake", headers: Self.json, body: #"{"url":"https://a.example/x"}"#)
        #expect(created.status == 201)
        let id = try #require(created.object["id"]?.stringValue)
        #expect(created.headers["Location"] == "/v1/intake/\(id)")
        #expect(created.headers["Cache-Control"] == "no-store")
        let repeated = await harness.send("POST", "/v1/intake", headers: Self.json, body: #"{"url":"https://a.example/x"}"#)
        #expect(repeated.status == 200)
        #expect(repeated.headers["Content-Location"] == "/v1/intake/\(id)")
        let list = await harness.send("GET", "/v1/intake?limit=5")
        #expect(list.object["items"]?.arrayValue?.count == 1)
        let shown = await harness.send("GET", "/v1/intake/\(id)")
        #expect(shown.object["canonicalUrl"]?.stringValue == "https://a.example/x")
        let page = await harness.send("GET", "/v1/intake/\(id)", headers: [("Accept", "text/html")])
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(await harness.send("DELETE", "/v1/intake/\(id)").status == 204)
        let gone = await harness.send("DELETE", "/v1/intake/\(id)")
        #expect(gone.status == 404 && gone.problemKind == "not-found")
        #expect(await harness.send("GET", "/v1/intake/\(id)").status == 404)
        #expect(await harness.send("GET", "/v1/intake/abc").status == 404)
        let metrics = await harness.metricsText()
        #expect(metrics.contains(#"navpolicyd_intake_requests_total{result="created"} 1"#))
        #expect(metrics.contains(#"navpolicyd_intake_requests_total{result="duplicate"} 1"#))
    }

    @Test("the share target answers 303 to the stored item")
    func shareTarget() async throws {
        let harness = try ServiceHarness()
        let response = await harness.send(
            "POST", "/v1/intake/share-target", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "url=https%3A%2F%2Fa.example%2Fshared")
        #expect(response.status == 303)
        #expect(response.headers["Location"]?.hasPrefix("/v1/intake/") == true)
    }

    @Test("intake decisions get a decision id, a decision-log line and the decision counter")
    func intakeDecisionsAreRecorded() async throws {
        let harness = try ServiceHarness()
        let created = await harness.send("POST", "/v1/intake", headers: Self.json, body: #"{"url":"https://a.example/logout"}"#)
        #expect(created.status == 201)
        #expect(
            await harness.metricsText().contains(
                #"navpolicyd_decisions_total{handler="logout",decision="cancel",action="logout",frontend="intake"} 1"#))
        let lines = try harness.closeDecisionLog()
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        let object = try JSONParser().parse(line)
        #expect(object["decisionId"]?.stringValue?.count == 21)
        #expect(object["request"]?["url"]?.stringValue == "https://a.example/logout")
        #expect(object["decision"]?["decision"]?.stringValue == "cancel")
        #expect(object["revision"]?.stringValue == harness.store.snapshot?.revision)
    }

    @Test(
        "bad submissions are problems with their headers",
        arguments: [
            ([("Content-Type", "application/xml")], "<a/>", 415, "unsupported-media-type", "Accept-Post"),
            (json, "{", 400, nil, nil),
            (json, #"{"url":"javascript:alert(1)"}"#, 422, nil, nil),
            (json + [("Idempotency-Key", "")], #"{"url":"https://a.example/"}"#, 400, nil, nil),
        ] as [([(String, String)], String, Int, String?, String?)])
    func badSubmissions(headers: [(String, String)], body: String, status: Int, kind: String?, header: String?)
        async throws
    {
        let harness = try ServiceHarness()
        let response = await harness.send("POST", "/v1/intake", headers: headers, body: body)
        #expect(response.status.code == status, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/problem+json")
        if let kind { #expect(response.problemKind == kind) }
        if let header { #expect(response.headers[HTTPFieldName(header)] != nil) }
        #expect(await harness.metricsText().contains("navpolicyd_intake_requests_total{result="))
    }

    @Test(
        "list refuses bad paging with 400 naming the field",
        arguments: [("limit=0", "limit"), ("limit=101", "limit"), ("after=-1", "after"), ("page=2", "page")])
    func badPaging(query: String, field: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/v1/intake?" + query)
        #expect(response.status == 400)
        #expect(response.object["field"]?.stringValue == field)
    }

    @Test("with an intake token every intake endpoint answers 401 in its own realm")
    func token() async throws {
        let harness = try ServiceHarness(intake: .open(token: serviceTestToken))
        for (method, path) in [
            ("GET", "/v1/intake"), ("POST", "/v1/intake"), ("POST", "/v1/intake/share-target"),
            ("GET", "/v1/intake/1"), ("DELETE", "/v1/intake/1"),
        ] {
            let response = await harness.send(method, path)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd-intake""#)
            #expect(response.object["detail"]?.stringValue == "Send Authorization: Bearer <intake token>.")
        }
        let listed = await harness.send("GET", "/v1/intake", headers: [("Authorization", "Bearer " + serviceTestToken)])
        #expect(listed.status == 200)
    }

    @Test("intake off: 404 intake-disabled before authorization; no store: 503 with Retry-After")
    func unavailable() async throws {
        let disabled = try ServiceHarness(intake: .disabled)
        let notConfigured = try ServiceHarness(intake: .notConfigured)
        for (method, path) in [
            ("GET", "/v1/intake"), ("POST", "/v1/intake"), ("POST", "/v1/intake/share-target"),
            ("GET", "/v1/intake/1"), ("DELETE", "/v1/intake/1"),
        ] {
            let off = await disabled.send(method, path)
            #expect(off.status == 404 && off.problemKind == "intake-disabled", "\(method) \(path)")
            let missing = await notConfigured.send(method, path)
            #expect(missing.status == 503 && missing.problemKind == "storage-unavailable", "\(method) \(path)")
            #expect(missing.headers["Retry-After"] == "1")
        }
    }
}
