import Foundation
import JSONSupport
import PolicyService
import Testing

/// `docs/openapi.yaml` checked against the real daemon: every route and method it serves is
/// documented (and nothing else), and every documented response is one the server really
/// sends, with the documented media type, required headers and body schema.
@Suite("OpenAPI contract")
struct OpenAPIContractTests {
    static let adminToken = "oA7qZ2vK9mX4pL8wR3tN"

    @Test("the YAML subset reader reads what the document uses and rejects what it does not")
    func reader() throws {
        let text = """
            # comment
            a: 1
            "200":
              list: [x, "y z", 'q''s']
              seq:
                - name: n
                  in: query
                - plain
              text: |
                line one
                  indented

                after blank
              folded: >-
                one
                two
            empty: []
            """
        let node = try YAMLSubsetReader.parse(text)
        #expect(node["a"] == .scalar("1"))
        #expect(node["200"]?["list"]?.strings == ["x", "y z", "q's"])
        #expect(node["200"]?["seq"]?.items.first?["in"] == .scalar("query"))
        #expect(node["200"]?["seq"]?.items.last == .scalar("plain"))
        #expect(node["200"]?["text"] == .scalar("line one\n  indented\n\nafter blank\n"))
        #expect(node["200"]?["folded"] == .scalar("one two"))
        #expect(node["empty"] == .sequence([]))
        #expect(
            try YAMLSubsetReader.parse("s:\n  - {}\n  - t: []")
                == .mapping([
                    YAMLEntry(key: "s", value: .sequence([.mapping([]), .mapping([YAMLEntry(key: "t", value: .sequence([]))])]))
                ]))
        for bad in ["a: &x 1", "a: *x", "a: {b: 1}", "a: 1\na: 2", "a:\n   b: 1", "a: b: c", "a:\n\tb: 1", "a: [{b: 1}]"] {
            #expect(throws: YAMLSubsetError.self, "\(bad)") { try YAMLSubsetReader.parse(bad) }
        }
    }

    @Test("the document is OpenAPI 3.1 and every $ref resolves")
    func documentShape() throws {
        let document = try OpenAPIDocument.load()
        #expect(document.root["openapi"]?.string?.hasPrefix("3.1.") == true)
        #expect(document.root["info"]?["title"]?.string == "navpolicyd")
        for reference in document.references {
            #expect(document.node(at: reference) != nil, "unresolved \(reference)")
        }
        #expect(document.root["components"]?["securitySchemes"]?["adminToken"]?["scheme"]?.string == "bearer")
        #expect(document.root["components"]?["schemas"]?["Problem"]?["additionalProperties"]?.string == "true")
        // Tokens are optional everywhere (no token configured, no token asked): every
        // operation that names a scheme also lists the empty requirement `{}`, and the
        // decision endpoints name the admin token they may require.
        for (path, methods) in document.operations {
            for method in methods {
                let security = document.operation(path, method)?["security"]?.items ?? []
                if !security.isEmpty {
                    #expect(security.contains(.mapping([])), "\(method) \(path): security without {}")
                }
                if path == "/v1/decide" || path == "/v1/authz" || path.hasPrefix("/v1/intake") || path.hasPrefix("/v1/policy/") {
                    #expect(security.count == 2, "\(method) \(path): security \(security)")
                }
            }
        }
    }

    @Test("documented paths and methods are exactly the declared routes")
    func declaredRoutes() throws {
        let document = try OpenAPIDocument.load()
        let documented = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.path, Set($0.methods)) })
        let declared = Dictionary(uniqueKeysWithValues: RouteDeclaration.all.map { ($0.path, Set($0.methods)) })
        #expect(documented == declared)
    }

    @Test("documented paths and methods are exactly the server's routes and Allow headers")
    func routesAndMethods() throws {
        let document = try OpenAPIDocument.load()
        let daemon = try DaemonProcess()
        let documented = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.path, Set($0.methods)) })
        #expect(Set(documented.keys) == Set(RouteDeclaration.all.map(\.path)))
        for (path, methods) in documented {
            // An unsupported method gets 405 with Allow (and so also proves the path is not a 404).
            let probe = try Curl.request(daemon.baseURL + path, ["-X", "PATCH"])
            #expect(probe.status == 405, "\(path): \(probe.body)")
            let allowed = Set(
                (probe.headers["allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allowed == methods, "\(path): Allow \(allowed) vs documented \(methods)")
            #expect(!methods.contains("PATCH"))
        }
    }

    @Test("every documented response is produced by the live server and matches the document")
    func liveResponses() throws {
        let document = try OpenAPIDocument.load()
        var checker = ResponseChecker(document: document)
        try checkDefaultDaemon(&checker)
        try checkProtectedDaemon(&checker)
        try checkDraining(&checker)
        try checkIntake(&checker)
        try checkProtectedIntake(&checker)
        try checkDisabledIntake(&checker)

        // Every documented status of every operation was produced, except `no-policy` on
        // /v1/decide and /v1/policy/diff: serve refuses to start without a valid policy and never drops it;
        // intake's `storage-unavailable` (needs a failing disk) and `idempotency-in-flight`
        // (timing-dependent; IntakeEndpointTests provokes it with concurrent requests); analyze's
        // `analysis-busy` (needs a run seconds long; AnalyzeEndpointHardeningTests checks it
        // against the document).
        let unreachable: Set<String> = [
            "POST /v1/policy/analyze 503",
            "GET /v1/decide 503", "HEAD /v1/decide 503", "POST /v1/decide 503", "GET /v1/intake 503",
            "POST /v1/intake 503", "POST /v1/intake/share-target 503", "GET /v1/intake/{id} 503",
            "DELETE /v1/intake/{id} 503", "POST /v1/intake 409", "POST /v1/intake/share-target 409",
            "POST /v1/policy/diff 503", "GET /v1/policy/bundle 503", "HEAD /v1/policy/bundle 503",
        ]
        var documentedStatuses: Set<String> = []
        for (path, methods) in document.operations {
            for method in methods {
                for status in document.operation(path, method)?["responses"]?.entries.map(\.key) ?? [] {
                    documentedStatuses.insert("\(method) \(path) \(status)")
                }
            }
        }
        let missed = documentedStatuses.subtracting(checker.covered).subtracting(unreachable)
        #expect(missed.isEmpty, "documented but never produced: \(missed.sorted())")
        #expect(unreachable.isSubset(of: documentedStatuses))
    }

    // MARK: - Scenarios

    private func checkDefaultDaemon(_ checker: inout ResponseChecker) throws {
        let daemon = try DaemonProcess()
        let base = daemon.baseURL
        let json = ["-H", "Content-Type: application/json"]

        // Every documented query parameter, with a value the document allows, is accepted.
        let parameters = try documentedQuery(checker.document)
        for method in ["GET", "HEAD"] {
            let head = method == "HEAD" ? ["-I"] : []
            try checker.check(method, "/v1/decide", 200, Curl.request(base + "/v1/decide?" + parameters, head))
            try checker.check(
                method, "/v1/decide", 200, Curl.request(base + "/v1/decide?url=https%3A%2F%2Fa.example%2Flogout", head))
            for query in ["", "?url=https://a/&navigationType=click", "?url=https://a/&url=https://b/", "?url=https://a/&nope=1"]
            {
                try checker.check(method, "/v1/decide", 400, Curl.request(base + "/v1/decide" + query, head))
            }
        }

        // POST: one request with every documented member, a batch with explain, errors.
        let single = try documentedSingleBody(checker.document)
        let batch =
            #"{"requests":[{"url":"https://a.example/logout"},{"url":"https://pay.example.com/x","targetFrame":"sub"}],"explain":true}"#
        for body in [single, batch, #"{"url":"https://a.example/","sourceURL":null}"#] {
            checker.checkRequestBody("/v1/decide", body)
            try checker.check("POST", "/v1/decide", 200, Curl.request(base + "/v1/decide", json + ["--data-binary", body]))
        }
        try checker.check(
            "POST", "/v1/decide", 200,
            Curl.request(base + "/v1/decide", ["-H", "Content-Type: application/json; charset=utf-8", "-d", single]))
        for body in ["{", "[]", #"{"url":"https://a/","extra":1}"#, #"{"requests":[]}"#, #"{"requests":[{"url":"::"}]}"#] {
            try checker.check("POST", "/v1/decide", 400, Curl.request(base + "/v1/decide", json + ["--data-binary", body]))
        }
        let big = try BinaryRunner.temporaryFile(#"{"url":""# + String(repeating: "a", count: 70_000) + #""}"#)
        try checker.check("POST", "/v1/decide", 413, Curl.request(base + "/v1/decide", json + ["--data-binary", "@" + big]))
        try checker.check(
            "POST", "/v1/decide", 415,
            Curl.request(base + "/v1/decide", ["-H", "Content-Type: text/plain", "-d", #"{"url":"https://a/"}"#]))
        try checker.check("POST", "/v1/decide", 415, Curl.request(base + "/v1/decide", ["-X", "POST"]))

        // Read-only endpoints, GET and HEAD.
        for path in ["/v1/policy", "/healthz", "/readyz", "/readyz/intake", "/metrics"] {
            try checker.check("GET", path, 200, Curl.request(base + path))
            try checker.check("HEAD", path, 200, Curl.request(base + path, ["-I"]))
        }
        // The policy bundle: 200, then 304 for the tag it carried (and for a list holding it).
        let bundle = try Curl.request(base + "/v1/policy/bundle")
        try checker.check("GET", "/v1/policy/bundle", 200, bundle)
        try checker.check("HEAD", "/v1/policy/bundle", 200, Curl.request(base + "/v1/policy/bundle", ["-I"]))
        let tag = try #require(bundle.headers["etag"])
        for condition in [tag, "\"old\", W/\(tag)"] {
            let conditional = ["-H", "If-None-Match: \(condition)"]
            try checker.check("GET", "/v1/policy/bundle", 304, Curl.request(base + "/v1/policy/bundle", conditional))
            try checker.check(
                "HEAD", "/v1/policy/bundle", 304, Curl.request(base + "/v1/policy/bundle", conditional + ["-I"]))
        }
        // nginx auth_request: allow, cancel (with and without a location), missing headers.
        for method in ["GET", "HEAD"] {
            let head = method == "HEAD" ? ["-I"] : []
            let authz = base + "/v1/authz"
            try checker.check(method, "/v1/authz", 204, Curl.request(authz, head + ["-H", "X-Original-URL: https://a.example/"]))
            try checker.check(
                method, "/v1/authz", 403, Curl.request(authz, head + ["-H", "X-Original-URL: https://a.example/logout"]))
            try checker.check(
                method, "/v1/authz", 403,
                Curl.request(
                    authz,
                    head + [
                        "-H", "X-Forwarded-Proto: https", "-H", "X-Forwarded-Host: pay.example.com", "-H", "X-Original-URI: /x",
                    ]))
            try checker.check(method, "/v1/authz", 400, Curl.request(authz, head))
        }
        // A candidate config replayed against the live one, over posted requests.
        let diff = base + "/v1/policy/diff"
        let jsonBody = ["-H", "Content-Type: application/json", "-d"]
        let candidate =
            #"{"config":{"handlers":[]},"requests":[{"url":"https://app.example.com/logout"},{"url":"https://a.example/"}]}"#
        let diffed = try Curl.request(diff, jsonBody + [candidate])
        try checker.check("POST", "/v1/policy/diff", 200, diffed)
        #expect(diffed.json?["changed"] as? Int == 1, "\(diffed.body)")
        #expect(diffed.json?["source"] as? String == "posted")
        try checker.check("POST", "/v1/policy/diff", 400, Curl.request(diff, jsonBody + [#"{"config":{},"extra":1}"#]))
        try checker.check(
            "POST", "/v1/policy/diff", 422, Curl.request(diff, jsonBody + [#"{"config":{"handlers":[{"type":"nope"}]}}"#]))
        try checker.check("POST", "/v1/policy/diff", 415, Curl.request(diff, ["-d", candidate]))
        // The analysis of posted configs (issue 32).
        let analyze = base + "/v1/policy/analyze"
        try checker.check(
            "POST", "/v1/policy/analyze", 200, Curl.request(analyze, jsonBody + [#"{"config":{"handlers":[]}}"#]))
        try checker.check("POST", "/v1/policy/analyze", 400, Curl.request(analyze, jsonBody + [#"{"config":{},"x":1}"#]))
        try checker.check(
            "POST", "/v1/policy/analyze", 422,
            Curl.request(analyze, jsonBody + [#"{"config":{"handlers":[{"type":"nope"}]}}"#]))
        try checker.check("POST", "/v1/policy/analyze", 415, Curl.request(analyze, ["-d", #"{"config":{}}"#]))
        // No requests posted and no decision log: nothing to replay.
        try checker.check("POST", "/v1/policy/diff", 409, Curl.request(diff, jsonBody + [#"{"config":{"handlers":[]}}"#]))

        // Reload without a configured token: the bytes did not change.
        let unchanged = try Curl.request(base + "/v1/policy/reload", ["-X", "POST"])
        try checker.check("POST", "/v1/policy/reload", 200, unchanged)
        #expect(unchanged.json?["result"] as? String == "unchanged")

        // The status report, and the status page for browsers only.
        for method in ["GET", "HEAD"] {
            let head = method == "HEAD" ? ["-I"] : []
            try checker.check(method, "/v1/status", 200, Curl.request(base + "/v1/status", head))
            for path in ["/", "/status"] {
                try checker.check(method, path, 200, Curl.request(base + path, head + ["-H", "Accept: text/html"]))
                try checker.check(method, path, 404, Curl.request(base + path, head + ["-H", "Accept: application/json"]))
            }
        }

        // Answers outside any operation: unknown paths and unsupported methods.
        for (target, arguments) in [
            ("/v2/decide", [String]()), ("/v1/decide/", []), ("/status/", []), ("/healthz/x", ["-I"]),
        ] {
            try checker.checkComponent("NotFound", 404, Curl.request(base + target, arguments), head: arguments == ["-I"])
        }
        for (target, method) in [
            ("/v1/decide", "DELETE"), ("/v1/policy/reload", "GET"), ("/healthz", "OPTIONS"), ("/metrics", "POST"),
            ("/", "POST"),
        ] {
            try checker.checkComponent("MethodNotAllowed", 405, Curl.request(base + target, ["-X", method]), head: false)
        }
        let connect = try RawConnection(port: daemon.port)
        connect.send("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n")
        try checker.checkComponent("NotImplemented", 501, connect.receiveResponse(), head: false)

        // What the HTTP layer answers before the API sees the request, for every operation.
        for (path, methods) in checker.document.operations {
            for method in methods {
                let target = path
                let requests: [(Int, String)] = [
                    (400, "\(method) \(target) HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                    (
                        413,
                        "\(method) \(target) HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n"
                    ),
                    (414, "\(method) \(target)?pad=\(String(repeating: "x", count: 9000)) HTTP/1.1\r\nHost: a\r\n\r\n"),
                    (
                        431,
                        "\(method) \(target) HTTP/1.1\r\nHost: a\r\n"
                            + (0..<17).map { "X-Pad-\($0): \(String(repeating: "y", count: 1000))\r\n" }.joined() + "\r\n"
                    ),
                    (501, "\(method) \(target) HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"),
                ]
                for (status, request) in requests {
                    let connection = try RawConnection(port: daemon.port)
                    connection.send(request)
                    try checker.check(method, path, status, connection.receiveResponse())
                }
            }
        }
        for request in [
            "GET /healthz HTTP/1.1\r\n\r\n",
            "POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ] {
            let connection = try RawConnection(port: daemon.port)
            connection.send(request)
            let method = String(request.prefix { $0 != " " })
            try checker.check(method, method == "GET" ? "/healthz" : "/v1/decide", 400, connection.receiveResponse())
        }
    }

    /// A daemon with an admin token that guards /v1/decide too, and no file watching, so reloads happen only on request.
    private func checkProtectedDaemon(_ checker: inout ResponseChecker) throws {
        let policy = defaultConfig.trimmingCharacters(in: .whitespacesAndNewlines)
        let config = #"{"server":{"requireTokenForDecide":true,"watchConfig":false},"# + policy.dropFirst()
        let daemon = try DaemonProcess(config: config, environment: ["NAVPOLICY_ADMIN_TOKEN": Self.adminToken])
        let base = daemon.baseURL
        let good = ["-H", "Authorization: Bearer \(Self.adminToken)"]
        let wrong = ["-H", "Authorization: Bearer not-the-token-0000000000"]
        let decide = "/v1/decide?url=https://a.example/about"
        for credentials in [[], wrong] {
            try checker.check("GET", "/v1/decide", 401, Curl.request(base + decide, credentials))
            try checker.check("HEAD", "/v1/decide", 401, Curl.request(base + decide, credentials + ["-I"]))
            try checker.check(
                "POST", "/v1/decide", 401,
                Curl.request(
                    base + "/v1/decide", credentials + ["-H", "Content-Type: application/json", "-d", #"{"url":"https://a/"}"#]))
            try checker.check(
                "POST", "/v1/policy/reload", 401, Curl.request(base + "/v1/policy/reload", credentials + ["-X", "POST"]))
            try checker.check(
                "POST", "/v1/policy/diff", 401,
                Curl.request(
                    base + "/v1/policy/diff",
                    credentials + ["-H", "Content-Type: application/json", "-d", #"{"config":{}}"#]))
            try checker.check(
                "POST", "/v1/policy/analyze", 401,
                Curl.request(
                    base + "/v1/policy/analyze",
                    credentials + ["-H", "Content-Type: application/json", "-d", #"{"config":{}}"#]))
            let authz = credentials + ["-H", "X-Original-URL: https://a.example/"]
            try checker.check("GET", "/v1/policy/bundle", 401, Curl.request(base + "/v1/policy/bundle", credentials))
            try checker.check(
                "HEAD", "/v1/policy/bundle", 401, Curl.request(base + "/v1/policy/bundle", credentials + ["-I"]))
            // /v1/policy and /metrics show the chain the option hides (issue 26, item 8).
            for path in ["/v1/policy", "/metrics"] {
                try checker.check("GET", path, 401, Curl.request(base + path, credentials))
                try checker.check("HEAD", path, 401, Curl.request(base + path, credentials + ["-I"]))
            }
            try checker.check("GET", "/v1/authz", 401, Curl.request(base + "/v1/authz", authz))
            try checker.check("HEAD", "/v1/authz", 401, Curl.request(base + "/v1/authz", authz + ["-I"]))
            for path in ["/v1/status", "/", "/status"] {
                let html = credentials + ["-H", "Accept: text/html"]
                try checker.check("GET", path, 401, Curl.request(base + path, html))
                try checker.check("HEAD", path, 401, Curl.request(base + path, html + ["-I"]))
            }
        }
        for path in ["/v1/status", "/", "/status"] {
            try checker.check("GET", path, 200, Curl.request(base + path, good + ["-H", "Accept: text/html"]))
        }
        try checker.check("GET", "/v1/decide", 200, Curl.request(base + decide, good))
        try checker.check("POST", "/v1/policy/reload", 200, Curl.request(base + "/v1/policy/reload", good + ["-X", "POST"]))

        // An invalid edit is refused with 422 and reported in /v1/policy; a valid one is applied.
        try Data(#"{"handlers":[{"name":"x","type":"nope"}]}"#.utf8).write(to: URL(fileURLWithPath: daemon.configPath))
        let refused = try Curl.request(base + "/v1/policy/reload", good + ["-X", "POST"])
        try checker.check("POST", "/v1/policy/reload", 422, refused)
        #expect((refused.json?["errors"] as? [String])?.contains { $0.contains("/handlers/0/type") } == true, "\(refused.body)")
        let policyAfterFailure = try Curl.request(base + "/v1/policy", good)
        try checker.check("GET", "/v1/policy", 200, policyAfterFailure)
        #expect(policyAfterFailure.json?["lastReloadError"] is [String: Any])
        try Data(#"{"defaultDecision":"cancel","handlers":[{"name":"about","type":"about","match":{"paths":["/about"]}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath))
        let applied = try Curl.request(base + "/v1/policy/reload", good + ["-X", "POST"])
        try checker.check("POST", "/v1/policy/reload", 200, applied)
        #expect(applied.json?["result"] as? String == "reloaded")
    }

    /// /readyz and /readyz/intake turn 503 while a SIGTERM drain waits for a slow request; keep-alive connections opened before still get answers.
    private func checkDraining(_ checker: inout ResponseChecker) throws {
        let daemon = try DaemonProcess()
        let body = #"{"url":"https://app.example.com/logout"}"#
        let slow = try RawConnection(port: daemon.port)
        slow.send(
            "POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body.prefix(10))
        var idle: [(String, String, RawConnection)] = []
        for path in ["/readyz", "/readyz/intake"] {
            for method in ["GET", "HEAD"] {
                let connection = try RawConnection(port: daemon.port)
                connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(connection.receiveResponse().status == 200)
                idle.append((method, path, connection))
            }
        }
        Thread.sleep(forTimeInterval: 0.2)
        daemon.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        for (method, path, connection) in idle {
            connection.send("\(method) \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
            try checker.check(method, path, 503, connection.receiveResponse())
        }
        slow.send(String(body.dropFirst(10)))
        #expect(slow.receiveResponse().status == 200)
        #expect(daemon.waitForExit() == 0)
    }

    /// Share intake on a daemon without a token: every format, rule and error.
    private func checkIntake(_ checker: inout ResponseChecker) throws {
        let daemon = try DaemonProcess()
        let base = daemon.baseURL
        let intake = base + "/v1/intake"
        let json = ["-H", "Content-Type: application/json"]
        let created = try Curl.request(intake, json + ["-d", #"{"url":"HTTPS://Shared.example/a#x","title":"T","tags":["t"]}"#])
        try checker.check("POST", "/v1/intake", 201, created)
        let location = try #require(created.headers["location"])
        try checker.check("POST", "/v1/intake", 200, Curl.request(intake, json + ["-d", #"{"url":"https://shared.example/a"}"#]))
        try checker.check("POST", "/v1/intake", 400, Curl.request(intake, json + ["-d", "{"]))
        try checker.check(
            "POST", "/v1/intake", 400,
            Curl.request(intake, json + ["-H", "Idempotency-Key: \"\"", "-d", #"{"url":"https://b/"}"#]))
        let big = try BinaryRunner.temporaryFile(
            #"{"url":"https://b/","text":""# + String(repeating: "a", count: 70_000) + #""}"#)
        try checker.check("POST", "/v1/intake", 413, Curl.request(intake, json + ["--data-binary", "@" + big]))
        try checker.check(
            "POST", "/v1/intake", 415, Curl.request(intake, ["-H", "Content-Type: application/xml", "-d", "<a/>"]))
        for body in [#"{"title":"none"}"#, #"{"url":"javascript:alert(1)"}"#, #"{"url":"https://u:p@e.example/"}"#] {
            try checker.check("POST", "/v1/intake", 422, Curl.request(intake, json + ["-d", body]))
        }
        let target = base + "/v1/intake/share-target"
        try checker.check(
            "POST", "/v1/intake/share-target", 303, Curl.request(target, ["-F", "url=", "-F", "text=Hi https://form.example/a"]))
        try checker.check("POST", "/v1/intake/share-target", 400, Curl.request(target, ["-F", "url=@" + big]))
        let bigForm = try BinaryRunner.temporaryFile("text=" + String(repeating: "a", count: 70_000))
        try checker.check("POST", "/v1/intake/share-target", 413, Curl.request(target, ["--data-binary", "@" + bigForm]))
        try checker.check("POST", "/v1/intake/share-target", 415, Curl.request(target, json + ["-d", #"{"url":"https://b/"}"#]))
        try checker.check("POST", "/v1/intake/share-target", 422, Curl.request(target, ["-d", "url=file:///etc/passwd"]))

        try checker.check("GET", "/v1/intake", 200, Curl.request(intake + "?limit=1"))
        try checker.check("GET", "/v1/intake", 400, Curl.request(intake + "?limit=0"))
        try checker.check("GET", "/v1/intake/{id}", 200, Curl.request(base + location))
        try checker.check("GET", "/v1/intake/{id}", 200, Curl.request(base + location, ["-H", "Accept: text/html"]))
        try checker.check("GET", "/v1/intake/{id}", 404, Curl.request(intake + "/999"))
        try checker.check("DELETE", "/v1/intake/{id}", 204, Curl.request(base + location, ["-X", "DELETE"]))
        try checker.check("DELETE", "/v1/intake/{id}", 404, Curl.request(base + location, ["-X", "DELETE"]))
    }

    /// Share intake with a token, `onCancel: reject` and two URLs per request.
    private func checkProtectedIntake(_ checker: inout ResponseChecker) throws {
        let policy = defaultConfig.trimmingCharacters(in: .whitespacesAndNewlines)
        let config = #"{"intake":{"onCancel":"reject","maxWebURLs":2},"# + policy.dropFirst()
        let token = "iN5tK8qW2zR7vM3xP9bL"
        let daemon = try DaemonProcess(config: config, environment: ["NAVPOLICY_INTAKE_TOKEN": token])
        let base = daemon.baseURL
        let good = ["-H", "Authorization: Bearer \(token)"]
        for credentials in [[], ["-H", "Authorization: Bearer wrong-token-00000000"]] {
            let json = credentials + ["-H", "Content-Type: application/json", "-d", #"{"url":"https://a.example/"}"#]
            try checker.check("POST", "/v1/intake", 401, Curl.request(base + "/v1/intake", json))
            try checker.check(
                "POST", "/v1/intake/share-target", 401,
                Curl.request(base + "/v1/intake/share-target", credentials + ["-d", "url=https://a/"]))
            try checker.check("GET", "/v1/intake", 401, Curl.request(base + "/v1/intake", credentials))
            try checker.check("GET", "/v1/intake/{id}", 401, Curl.request(base + "/v1/intake/1", credentials))
            try checker.check(
                "DELETE", "/v1/intake/{id}", 401, Curl.request(base + "/v1/intake/1", credentials + ["-X", "DELETE"]))
        }
        let cancelled = #"{"url":"https://app.example.com/logout"}"#
        let denied = try Curl.request(base + "/v1/intake", good + ["-H", "Content-Type: application/json", "-d", cancelled])
        try checker.check("POST", "/v1/intake", 403, denied)
        #expect((denied.json?["decision"] as? [String: Any])?["decision"] as? String == "cancel", "\(denied.body)")
        try checker.check(
            "POST", "/v1/intake/share-target", 403,
            Curl.request(base + "/v1/intake/share-target", good + ["-d", "url=https://app.example.com/logout"]))
        let batch = try Curl.request(
            base + "/v1/intake",
            good + ["-H", "Content-Type: text/uri-list", "--data-binary", "https://a.example/\r\nhttps://b.example/\r\n"])
        try checker.check("POST", "/v1/intake", 201, batch)
        #expect((batch.json?["items"] as? [Any])?.count == 2, "\(batch.body)")
    }

    // MARK: - Requests built from the document

    /// A query with every documented parameter of GET /v1/decide, each with an allowed value.
    /// `intake.enabled: false`: every intake operation answers 404 `intake-disabled`.
    private func checkDisabledIntake(_ checker: inout ResponseChecker) throws {
        let daemon = try DaemonProcess(config: DecisionOnlyDaemonTests.config(intakeEnabled: false))
        let base = daemon.baseURL
        let form = ["-d", "url=https://a.example/"]
        let answers = [
            ("GET", "/v1/intake", try Curl.request(base + "/v1/intake")),
            ("POST", "/v1/intake", try Curl.request(base + "/v1/intake", form)),
            ("POST", "/v1/intake/share-target", try Curl.request(base + "/v1/intake/share-target", form)),
            ("GET", "/v1/intake/{id}", try Curl.request(base + "/v1/intake/1")),
            ("DELETE", "/v1/intake/{id}", try Curl.request(base + "/v1/intake/1", ["-X", "DELETE"])),
        ]
        for (method, path, response) in answers {
            try checker.check(method, path, 404, response)
            #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:intake-disabled", "\(response.body)")
        }
        // Intake readiness on a daemon without intake: 404 too, never a false "ready".
        try checker.check("GET", "/readyz/intake", 404, Curl.request(base + "/readyz/intake"))
        try checker.check("HEAD", "/readyz/intake", 404, Curl.request(base + "/readyz/intake", ["-I"]))
    }

    /// A request line past libmicrohttpd's memory pool gets the library's own HTML 414 without
    /// Content-Type, as URITooLong says; a header section past it gets the daemon's
    /// problem+json 431 (answered for libmicrohttpd), as HeaderFieldsTooLarge says.
    @Test("past the memory pool: libmicrohttpd's HTML 414, the daemon's problem+json 431, as documented")
    func libraryRejections() throws {
        let document = try OpenAPIDocument.load()
        let daemon = try DaemonProcess()
        let long = String(repeating: "a", count: 40_000)
        let target = try Curl.request(daemon.baseURL + "/healthz?" + long)
        #expect(target.status == 414)
        #expect(target.headers["content-type"] == nil)
        #expect(target.body.hasPrefix("<html><head><title>Request too big</title>"))
        let uriTooLong = document.node(at: "#/components/responses/URITooLong")?["description"]?.string ?? ""
        #expect(uriTooLong.contains("no Content-Type"), "URITooLong must document the library's answer")

        let header = try Curl.request(daemon.baseURL + "/healthz", ["-H", "X-Big: " + long])
        try ResponseChecker(document: document).checkComponent("HeaderFieldsTooLarge", 431, header, head: false)
        #expect(header.json?["type"] as? String == "urn:navpolicyd:problem:request-header-fields-too-large")
        let fieldsTooLarge = document.node(at: "#/components/responses/HeaderFieldsTooLarge")?["description"]?.string ?? ""
        #expect(fieldsTooLarge.contains("memory pool"), "HeaderFieldsTooLarge must document the pool's 431")
    }

    private func documentedQuery(_ document: OpenAPIDocument) throws -> String {
        let parameters = try #require(document.operation("/v1/decide", "get")?["parameters"]?.items)
        return try parameters.map { reference -> String in
            let parameter = try #require(document.resolve(reference))
            let name = try #require(parameter["name"]?.string)
            #expect(parameter["in"]?.string == "query")
            let value = try sampleValue(named: name, schema: parameter["schema"], document: document)
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)
        }.joined(separator: "&")
    }

    /// A single POST body with every documented member of DecideRequest.
    private func documentedSingleBody(_ document: OpenAPIDocument) throws -> String {
        let schema = try #require(document.node(at: "#/components/schemas/DecideRequest"))
        var object = JSONObject()
        for entry in schema["properties"]?.entries ?? [] {
            let types = document.resolve(entry.value)?["type"]?.strings ?? []
            if types == ["boolean"] {
                object.append(entry.key, .bool(true))
            } else {
                object.append(entry.key, .string(try sampleValue(named: entry.key, schema: entry.value, document: document)))
            }
        }
        return String(decoding: JSONValue.object(object).serializedBytes, as: UTF8.self)
    }

    /// A value the document allows: the last enum member (not the default), an example, or a URL.
    private func sampleValue(named name: String, schema: YAMLNode?, document: OpenAPIDocument) throws -> String {
        var resolved = schema.flatMap(document.resolve)
        if let alternatives = resolved?["oneOf"]?.items {
            resolved = alternatives.lazy.compactMap(document.resolve).first { $0["enum"] != nil }
        }
        if let choices = resolved?["enum"]?.strings, let choice = choices.first(where: { $0 != resolved?["default"]?.string }) {
            return choice
        }
        if name == "method" { return "POST" }
        return "https://app.example.com/about"
    }
}

/// Compares live responses with the document and records which (method, path, status) were seen.
struct ResponseChecker {
    let document: OpenAPIDocument
    private(set) var covered: Set<String> = []

    init(document: OpenAPIDocument) {
        self.document = document
    }

    /// Checks a response to `method path` that the scenario expects to have `status`.
    mutating func check(
        _ method: String, _ path: String, _ status: Int, _ response: Curl.Response,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let label = "\(method) \(path) \(status)"
        #expect(response.status == status, "\(label): got \(response.status) \(response.body)", sourceLocation: sourceLocation)
        let operation = try #require(
            document.operation(path, method), "\(method) \(path) is not documented", sourceLocation: sourceLocation)
        let documented = try #require(
            operation["responses"]?["\(response.status)"].flatMap(document.resolve),
            "\(method) \(path) answered \(response.status), which is not documented: \(response.body)",
            sourceLocation: sourceLocation)
        covered.insert("\(method) \(path) \(response.status)")
        compare(response, with: documented, label: label, head: method == "HEAD", sourceLocation: sourceLocation)
    }

    /// Checks a response that belongs to no operation (404, 405, CONNECT) against `components/responses/<name>`.
    func checkComponent(
        _ name: String, _ status: Int, _ response: Curl.Response, head: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, "\(name): got \(response.status) \(response.body)", sourceLocation: sourceLocation)
        let documented = try #require(document.node(at: "#/components/responses/\(name)"), sourceLocation: sourceLocation)
        compare(response, with: documented, label: name, head: head, sourceLocation: sourceLocation)
    }

    /// The JSON we send must itself be a valid request body per the document.
    func checkRequestBody(_ path: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let schema = document.operation(path, "post")?["requestBody"]?["content"]?["application/json"]?["schema"],
            let value = try? JSONParser().parse(Array(body.utf8))
        else {
            Issue.record(
                "no JSON request body documented for POST \(path), or unparsable \(body)", sourceLocation: sourceLocation)
            return
        }
        let problems = document.validate(value, against: schema)
        #expect(problems.isEmpty, "request \(body): \(problems)", sourceLocation: sourceLocation)
    }

    private func compare(
        _ response: Curl.Response, with documented: YAMLNode, label: String, head: Bool, sourceLocation: SourceLocation
    ) {
        for header in documented["headers"]?.entries ?? [] {
            guard let spec = document.resolve(header.value) else { continue }
            let received = response.headers[header.key.lowercased()]
            if spec["required"]?.string == "true" {
                #expect(received != nil, "\(label): missing header \(header.key)", sourceLocation: sourceLocation)
            }
            if let constant = spec["schema"]?["const"]?.string, let received {
                #expect(received == constant, "\(label): \(header.key) is \(received)", sourceLocation: sourceLocation)
            }
        }
        let media = documented["content"]?.entries ?? []
        guard !media.isEmpty else {
            #expect(response.body.isEmpty, "\(label): documented without content", sourceLocation: sourceLocation)
            return
        }
        let received = MediaType(response.headers["content-type"] ?? "")
        guard let match = media.first(where: { MediaType($0.key).isSatisfied(by: received) }) else {
            Issue.record(
                "\(label): Content-Type \(response.headers["content-type"] ?? "none") is not one of \(media.map(\.key))",
                sourceLocation: sourceLocation)
            return
        }
        if head {
            #expect(response.body.isEmpty, "\(label): HEAD answered with a body", sourceLocation: sourceLocation)
            return
        }
        guard let schema = match.value["schema"] else { return }
        if received.essence.hasSuffix("json") {
            do {
                let value = try JSONParser().parse(Array(response.body.utf8))
                let problems = document.validate(value, against: schema)
                #expect(problems.isEmpty, "\(label): \(problems) in \(response.body)", sourceLocation: sourceLocation)
                if received.essence == "application/problem+json", case .object(let object) = value {
                    #expect(
                        object["status"]?.integerValue == response.status, "\(label): status member",
                        sourceLocation: sourceLocation)
                }
            } catch {
                Issue.record("\(label): body is not JSON (\(error)): \(response.body)", sourceLocation: sourceLocation)
            }
        } else {
            #expect(document.validate(.string(response.body), against: schema).isEmpty, sourceLocation: sourceLocation)
            #expect(!response.body.isEmpty, "\(label): empty body", sourceLocation: sourceLocation)
        }
    }
}
