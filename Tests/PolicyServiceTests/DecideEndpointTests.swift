import HTTPServer
import JSONSupport
import Testing

@testable import PolicyService

@Suite("/v1/decide in-process")
struct DecideEndpointTests {
    @Test("GET decides the query's URL, with decisionId and policyRevision, and counts it")
    func decideGET() async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Flogout&explain=true")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        let object = response.object
        #expect(object["decision"]?.stringValue == "cancel")
        #expect(object["handler"]?.stringValue == "logout")
        #expect(object["decisionId"]?.stringValue?.count == 21)
        #expect(object["policyRevision"]?.stringValue == harness.store.snapshot?.revision)
        #expect(object["trace"] != nil)
        let head = await harness.send("HEAD", "/v1/decide?url=https%3A%2F%2Fapp.example.com%2F")
        #expect(head.status == 200)
        let metrics = await harness.metricsText()
        #expect(
            metrics.contains(
                #"navpolicyd_decisions_total{handler="logout",decision="cancel",action="logout",frontend="decide"} 1"#))
        #expect(metrics.contains(#"navpolicyd_http_requests_total{endpoint="/v1/decide",code="200"} 2"#))
    }

    @Test(
        "GET refuses a bad query with 400 invalid-request naming the field",
        arguments: [
            ("/v1/decide", "url"), ("/v1/decide?url=https://a.example/&bogus=1", "bogus"),
            ("/v1/decide?url=https://a.example/&url=https://b.example/", "url"),
            ("/v1/decide?url=https://a.example/&explain=yes", "explain"),
            ("/v1/decide?url=https://a.example/&navigationType=teleport", "navigationType"),
            ("/v1/decide?url=https://a.example/&targetFrame=side", "targetFrame"),
            ("/v1/decide?url=not%20a%20url", "url"),
        ])
    func decideGETErrors(target: String, field: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", target)
        #expect(response.status == 400)
        #expect(response.problemKind == "invalid-request")
        #expect(response.object["field"]?.stringValue == field)
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test("POST decides one request or a batch in order")
    func decidePOST() async throws {
        let harness = try ServiceHarness()
        let json = [("Content-Type", "application/json; charset=utf-8")]
        let single = await harness.send("POST", "/v1/decide", headers: json, body: #"{"url":"https://a.example/about"}"#)
        #expect(single.status == 200)
        #expect(single.object["handler"]?.stringValue == "about")
        let batch = await harness.send(
            "POST", "/v1/decide", headers: json,
            body: #"{"requests":[{"url":"https://a.example/logout"},{"url":"https://a.example/"}],"explain":false}"#)
        #expect(batch.status == 200)
        let decisions = batch.object["decisions"]?.arrayValue?.compactMap { $0["decision"]?.stringValue }
        #expect(decisions == ["cancel", "allow"])
    }

    @Test("POST without JSON is 415 with Accept-Post")
    func unsupportedMediaType() async throws {
        let harness = try ServiceHarness()
        for headers in [[("Content-Type", "text/plain")], []] {
            let response = await harness.send("POST", "/v1/decide", headers: headers, body: "{}")
            #expect(response.status == 415)
            #expect(response.problemKind == "unsupported-media-type")
            #expect(response.headers["Accept-Post"] == "application/json")
            #expect(Array(response.headers.map(\.name)) == ["Content-Type", "Accept-Post", "Cache-Control"])
        }
    }

    @Test(
        "POST refuses bad bodies with 400",
        arguments: [
            ("{", "malformed-json", nil), ("[1]", "malformed-json", nil),
            (#"{"url":"https://a.example/","explain":"yes"}"#, "invalid-request", "explain"),
            (#"{"nope":1}"#, "invalid-request", "nope"),
            (#"{"requests":[],"explain":true}"#, "invalid-request", "requests"),
            (#"{"requests":{}}"#, "invalid-request", "requests"),
            (#"{"requests":[1]}"#, "invalid-request", "requests/0"),
            (#"{"requests":[{"url":"https://a.example/"}],"extra":1}"#, "invalid-request", "extra"),
            (#"{"requests":[{"url":"https://a.example/","method":1}]}"#, "invalid-request", "requests/0/method"),
        ] as [(String, String, String?)])
    func decidePOSTErrors(body: String, kind: String, field: String?) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("POST", "/v1/decide", headers: [("Content-Type", "application/json")], body: body)
        #expect(response.status == 400)
        #expect(response.problemKind == kind)
        #expect(response.object["field"]?.stringValue == field)
    }

    @Test("a batch over the maximum is refused whole")
    func batchTooLarge() async throws {
        let harness = try ServiceHarness()
        let entries = Array(repeating: #"{"url":"https://a.example/"}"#, count: PolicyAPI.maximumBatch + 1)
        let response = await harness.send(
            "POST", "/v1/decide", headers: [("Content-Type", "application/json")],
            body: #"{"requests":["# + entries.joined(separator: ",") + "]}")
        #expect(response.status == 400)
        #expect(response.object["field"]?.stringValue == "requests")
        #expect(!(await harness.metricsText().contains("navpolicyd_decisions_total{")))
    }

    @Test("no policy loaded: 503 no-policy from decide, authz and readyz")
    func noPolicy() async throws {
        let harness = try ServiceHarness(config: nil)
        for (method, target, headers) in [
            ("GET", "/v1/decide?url=https://a.example/", [(String, String)]()),
            ("POST", "/v1/decide", [("Content-Type", "application/json")]),
            ("GET", "/v1/authz", [("X-Original-URL", "https://a.example/")]), ("GET", "/readyz", []),
        ] {
            let response = await harness.send(method, target, headers: headers, body: #"{"url":"https://a.example/"}"#)
            #expect(response.status == 503, "\(target)")
            #expect(response.problemKind == "no-policy")
        }
    }

    @Test("requireTokenForDecide: 401 with the challenge, then 200 with the admin token")
    func decideToken() async throws {
        let harness = try ServiceHarness(adminToken: serviceTestToken, requireTokenForDecide: true)
        let missing = await harness.send("GET", "/v1/decide?url=https://a.example/")
        #expect(missing.status == 401)
        #expect(missing.problemKind == "unauthorized")
        #expect(missing.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd""#)
        let wrong = await harness.send(
            "GET", "/v1/decide?url=https://a.example/", headers: [("Authorization", "Bearer wrong-token-value-1234")])
        #expect(wrong.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd", error="invalid_token""#)
        #expect(wrong.object["detail"]?.stringValue == "The bearer token is not valid.")
        let right = await harness.send(
            "GET", "/v1/decide?url=https://a.example/", headers: [("Authorization", "Bearer " + serviceTestToken)])
        #expect(right.status == 200)
        // Without requireTokenForDecide the admin token guards the reload only.
        let open = try ServiceHarness(adminToken: serviceTestToken)
        #expect(await open.send("GET", "/v1/decide?url=https://a.example/").status == 200)
        #expect(await open.send("GET", "/v1/authz", headers: [("X-Original-URL", "https://a.example/")]).status == 204)
    }
}
