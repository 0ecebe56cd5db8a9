import Foundation
import TestSelection
import Testing

/// Every endpoint of `navpolicyd serve`, driven with curl on a real port.
@Suite("Daemon endpoints", .serialized, .tags(.live, .sanitizerRelevant))
struct DaemonEndpointTests {
    let daemon: DaemonProcess

    init() throws {
        daemon = try DaemonProcess()
    }

    @Test("GET /v1/decide answers the check decision plus decisionId and policyRevision")
    func decideGET() throws {
        let response = try Curl.request(daemon.baseURL + "/v1/decide?url=https%3A%2F%2Fapp.example.com%2F%256Cogout")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let cli = try BinaryRunner.run(["check", "https://app.example.com/%6Cogout"])
        let prefix = cli.stdout.trimmingCharacters(in: .newlines).dropLast()  // the CLI object without its closing brace
        #expect(response.body.hasPrefix(prefix + #","decisionId":""#), "\(response.body)")
        let json = try #require(response.json)
        #expect(json["policyRevision"] as? String == "sha256:" + sha256Hex(of: defaultConfig))
        #expect((json["decisionId"] as? String)?.isEmpty == false)

        let fields = try Curl.request(
            daemon.baseURL
                + "/v1/decide?url=https://app.example.com/about&method=post&navigationType=formSubmitted&targetFrame=sub&sourceURL=https://app.example.com/&explain=true"
        )
        #expect(fields.status == 200)
        let trace = try #require(fields.json?["trace"] as? [[String: Any]])
        #expect(trace.map { $0["result"] as? String } == ["passed", "decided"])
    }

    @Test("POST /v1/decide takes one request or a batch, answering in order")
    func decidePOST() throws {
        let single = try Curl.request(
            daemon.baseURL + "/v1/decide",
            [
                "-H", "Content-Type: application/json", "-d",
                #"{"url":"https://pay.example.com/c","navigationType":"linkActivated"}"#,
            ])
        #expect(single.status == 200)
        #expect(single.json?["handler"] as? String == "payment")
        #expect(
            single.json?["location"] as? String == "https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fc")

        let urls = (0..<1000).map { $0 % 2 == 0 ? "https://a.example/logout?\($0)" : "https://a.example/home?\($0)" }
        let body = #"{"requests":["# + urls.map { #"{"url":"\#($0)"}"# }.joined(separator: ",") + "]}"
        let batch = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "--data-binary", body])
        #expect(batch.status == 200)
        let decisions = try #require(batch.json?["decisions"] as? [[String: Any]])
        #expect(decisions.count == 1000)
        #expect(decisions.map { $0["url"] as? String } == urls)
        #expect(decisions[0]["handler"] as? String == "logout" && decisions[1]["decision"] as? String == "allow")
        #expect(Set(decisions.compactMap { $0["decisionId"] as? String }).count == 1000)
    }

    @Test("health, readiness, policy and metrics")
    func operationalEndpoints() throws {
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        let ready = try Curl.request(daemon.baseURL + "/readyz")
        #expect(ready.status == 200)
        #expect(ready.json?["status"] as? String == "ready")

        let policy = try Curl.request(daemon.baseURL + "/v1/policy")
        #expect(policy.status == 200)
        let handlers = try #require(policy.json?["handlers"] as? [[String: Any]])
        #expect(handlers.map { $0["name"] as? String } == ["logout", "about", "payment"])
        #expect(handlers.map { $0["type"] as? String } == ["logout", "about", "payment-redirect"])
        #expect((policy.json?["revision"] as? String)?.hasPrefix("sha256:") == true)
        #expect(policy.json?["loadedAt"] is String)
        #expect(policy.json?["lastReloadError"] is NSNull)

        _ = try Curl.request(daemon.baseURL + "/v1/decide?url=https://a.example/about")
        let metrics = try Curl.request(daemon.baseURL + "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for needle in [
            #"navpolicyd_decisions_total{handler="about",decision="cancel",action="show-about",frontend="decide"} "#,
            "navpolicyd_policy_config_valid 1",
            #"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/decide",le="+Inf"} "#,
            "navpolicyd_policy_reloads_total{result=\"failed\"} 0", "navpolicyd_open_connections ",
            "navpolicyd_build_info{version=", "navpolicyd_decision_log_dropped_total 0",
        ] {
            #expect(metrics.body.contains(needle), "missing \(needle)")
        }
    }

    @Test(
        "client errors are problem+json with a stable type",
        arguments: [
            (["/v1/decide"], 400, "invalid-request"),
            (["/v1/decide?url=http://[::1"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&navigationType=click"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&targetFrame=top"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&method=G%20T"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&navigation_type=reload"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&url=https://b/"], 400, "invalid-request"),
            (["/v1/decide?url=https://a/&explain=yes"], 400, "invalid-request"),
            (["/v1/decide", "-H", "Content-Type: application/json", "-d", "{"], 400, "malformed-json"),
            (["/v1/decide", "-H", "Content-Type: application/json", "-d", "[]"], 400, "malformed-json"),
            (
                ["/v1/decide", "-H", "Content-Type: application/json", "-d", #"{"url":"https://a/","extra":1}"#], 400,
                "invalid-request"
            ),
            (
                ["/v1/decide", "-H", "Content-Type: application/json", "-d", #"{"url":"https://a/","targetFrame":"top"}"#], 400,
                "invalid-request"
            ),
            (["/v1/decide", "-H", "Content-Type: application/json", "-d", #"{"requests":[]}"#], 400, "invalid-request"),
            (
                [
                    "/v1/decide", "-H", "Content-Type: application/json", "-d",
                    #"{"requests":[{"url":"https://a/"},{"url":"::"}]}"#,
                ], 400, "invalid-request"
            ),
            (["/v1/decide", "-H", "Content-Type: text/plain", "-d", #"{"url":"https://a/"}"#], 415, "unsupported-media-type"),
            (["/v1/decide", "-d", "url=https://a/"], 415, "unsupported-media-type"),
            (["/v2/decide"], 404, "not-found"),
            (["/v1/decide/"], 404, "not-found"),
            (["/v1/decide", "-X", "DELETE"], 405, "method-not-allowed"),
            (["/v1/policy/reload"], 405, "method-not-allowed"),
            (["/healthz", "-X", "POST"], 405, "method-not-allowed"),
        ])
    func clientErrors(arguments: [String], status: Int, kind: String) throws {
        let response = try Curl.request(daemon.baseURL + arguments[0], Array(arguments.dropFirst()))
        #expect(response.status == status, "\(response.body)")
        #expect(response.headers["content-type"] == "application/problem+json")
        #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:" + kind, "\(response.body)")
        #expect(response.json?["status"] as? Int == status)
        #expect((response.json?["detail"] as? String)?.isEmpty == false)
        if status == 405 { #expect(response.headers["allow"] != nil) }
        if status == 415 { #expect(response.headers["accept-post"] == "application/json") }
    }

    @Test("a batch over 1000 requests is refused whole")
    func batchLimit() throws {
        let body = #"{"requests":["# + Array(repeating: #"{"url":"https://a/"}"#, count: 1001).joined(separator: ",") + "]}"
        let response = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "--data-binary", body])
        #expect(response.status == 400)
        #expect((response.json?["detail"] as? String)?.contains("1 to 1000") == true)
    }

    @Test("oversized and ambiguous requests: 413, 414, 431 and framing 400s")
    func limits() throws {
        let bigBody = try BinaryRunner.temporaryFile(#"{"url":""# + String(repeating: "a", count: 70_000) + #""}"#)
        let tooLarge = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "--data-binary", "@" + bigBody])
        #expect(tooLarge.status == 413)
        #expect(tooLarge.headers["content-type"] == "application/problem+json")

        let longTarget = try Curl.request(daemon.baseURL + "/v1/decide?url=https://a/" + String(repeating: "x", count: 10_000))
        #expect(longTarget.status == 414)
        #expect(longTarget.headers["content-type"] == "application/problem+json")

        var headerArguments: [String] = []
        for index in 0..<20 { headerArguments += ["-H", "X-Filler-\(index): " + String(repeating: "y", count: 1000)] }
        let bigHeaders = try Curl.request(daemon.baseURL + "/healthz", headerArguments)
        #expect(bigHeaders.status == 431)
        #expect(bigHeaders.headers["content-type"] == "application/problem+json")

        let smuggle = try RawConnection(port: daemon.port)
        smuggle.send(
            "POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        )
        let framing = smuggle.receiveResponse()
        #expect(framing.status == 400)
        #expect(framing.headers["content-type"] == "application/problem+json")

        let counted = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(counted.contains(#"navpolicyd_http_requests_total{endpoint="rejected",code="413"} 1"#), "\(counted)")

        let twoHosts = try RawConnection(port: daemon.port)
        twoHosts.send("GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n")
        let duplicate = twoHosts.receiveResponse()
        #expect(duplicate.status == 400)
        #expect(duplicate.body.contains("duplicate-host"))
    }

    @Test("keep-alive: curl reuses one connection for several requests")
    func keepAlive() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-sv", daemon.baseURL + "/healthz", daemon.baseURL + "/readyz", "-o", "/dev/null", "-o", "/dev/null",
        ]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("Re-using existing connection") || text.contains("Reusing existing connection"), "\(text)")
    }
}

/// Hex SHA-256 of a string from coreutils' sha256sum: an implementation independent of the daemon's.
func sha256Hex(of text: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try? process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try? input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(String(decoding: data, as: UTF8.self).prefix(64))
}
