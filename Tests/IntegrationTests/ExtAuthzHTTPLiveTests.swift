import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// `serve --ext-authz-listen`: Envoy's ext_authz HTTP service, driven with requests shaped
/// exactly as Envoy's HTTP authorization client sends them (original method, `path_prefix` +
/// original path, original `Host`, `x-forwarded-proto`, Envoy's own `x-envoy-*` and
/// `x-request-id`, `content-length: 0`), over a raw socket so every byte is the test's.
@Suite("ext_authz HTTP service (live)", .tags(.live, .sanitizerRelevant))
struct ExtAuthzHTTPLiveTests {
    /// The shipped default policy, with `extAuthz.pathPrefix` set as deploy/envoy does.
    static let config = defaultConfig.replacingOccurrences(
        of: #""defaultDecision": "allow","#,
        with: #""defaultDecision": "allow", "extAuthz": {"pathPrefix": "/authz"},"#)

    /// A daemon with the HTTP service on a free port. Checks go through it, so the daemon
    /// lives as long as a test still sends them.
    final class Service {
        let daemon: DaemonProcess
        let port: Int

        init(config: String = ExtAuthzHTTPLiveTests.config, arguments: [String] = []) throws {
            daemon = try DaemonProcess(config: config, arguments: ["--ext-authz-listen", "127.0.0.1:0"] + arguments)
            port = try #require(daemon.loggedPort("ext_authz.listening"), "no ext_authz.listening line")
        }

        /// One check request as Envoy's HTTP client writes it; an empty `proto` leaves the field
        /// out. `Connection: close` only lets the reader know the answer is complete (HEAD has no body).
        func check(
            method: String = "GET", path: String, host: String? = "app.example.com", proto: [String] = ["https"],
            extra: [(String, String)] = []
        ) throws -> Curl.Response {
            var head = "\(method) \(path) HTTP/1.1\r\n"
            if let host { head += "host: \(host)\r\n" }
            for value in proto { head += "x-forwarded-proto: \(value)\r\n" }
            head += "x-envoy-expected-rq-timeout-ms: 200\r\nx-request-id: 8d2f6a1c-3b7e-4c55-9a0e-1f2d3c4b5a69\r\n"
            head += "x-envoy-internal: true\r\nx-forwarded-for: 203.0.113.9\r\n"
            for (name, value) in extra { head += "\(name): \(value)\r\n" }
            head += "content-length: 0\r\nconnection: close\r\n\r\n"
            let connection = try RawConnection(port: port)
            connection.send(head)
            return connection.receiveResponse()
        }

        /// `GET /metrics` on the API listener.
        func metrics() throws -> String { try Curl.request(daemon.baseURL + "/metrics").body }
    }

    @Test("allow: 200 with the x-navigation-* fields Envoy copies upstream; the decision is logged as ext_authz")
    func allow() throws {
        let service = try Service(arguments: ["--decision-log", TestScratch.path("extauthz-decisions")])
        let response = try service.check(path: "/authz/welcome?tab=1")
        #expect(response.status == 200)
        #expect(response.headers["x-navigation-decision"] == "allow")
        #expect(response.headers["x-navigation-decision-id"]?.isEmpty == false)
        #expect(response.body.isEmpty)
        let metrics = try service.metrics()
        #expect(metrics.contains(#"navpolicyd_decision_duration_seconds_count{frontend="ext_authz"} 1"#))
        #expect(
            metrics.contains(#"navpolicyd_decisions_total{handler="",decision="allow",action="",frontend="ext_authz_http"} 1"#))
        #expect(metrics.contains(#"navpolicyd_http_requests_total{endpoint="ext_authz",code="200"} 1"#))
    }

    @Test("cancel: 403, the navigation-cancelled problem and X-Navigation-* for the client")
    func cancel() throws {
        let service = try Service()
        for method in ["GET", "POST", "DELETE"] {
            let response = try service.check(method: method, path: "/authz/logout")
            #expect(response.status == 403, "\(method)")
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(response.headers["x-navigation-decision"] == "cancel")
            #expect(response.headers["x-navigation-handler"] == "logout")
            #expect(response.headers["x-navigation-action"] == "logout")
            let decision = try #require(response.json?["decision"] as? [String: Any])
            #expect(decision["url"] as? String == "https://app.example.com/logout")
        }
        // HEAD: the same answer without its body.
        let head = try service.check(method: "HEAD", path: "/authz/logout")
        #expect(head.status == 403 && head.headers["x-navigation-handler"] == "logout" && head.body.isEmpty)
    }

    @Test("cancel with a location: 302 with Location")
    func cancelWithLocation() throws {
        let service = try Service()
        let response = try service.check(path: "/authz/cart?id=7", host: "pay.example.com")
        #expect(response.status == 302)
        #expect(
            response.headers["location"]
                == "https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fcart%3Fid%3D7")
        #expect(response.headers["x-navigation-handler"] == "payment")
    }

    @Test("the scheme comes from x-forwarded-proto, the host from Host (port kept)")
    func schemeAndHost() throws {
        let service = try Service()
        let response = try service.check(path: "/authz/about", host: "app.example.com:8080", proto: ["http"])
        let decision = try #require(response.json?["decision"] as? [String: Any])
        #expect(decision["url"] as? String == "http://app.example.com:8080/about")
    }

    @Test(
        "malformed checks get a clean 400 problem, never an allow",
        arguments: [
            ("no x-forwarded-proto", "GET", "/authz/welcome", "app.example.com", [String](), "X-Forwarded-Proto"),
            ("duplicate x-forwarded-proto", "GET", "/authz/logout", "app.example.com", ["http", "https"], "X-Forwarded-Proto"),
            ("scheme not http(s)", "GET", "/authz/welcome", "app.example.com", ["ftp"], "scheme"),
            ("path outside the prefix", "GET", "/logout", "app.example.com", ["https"], "path"),
            ("prefix without a path", "GET", "/authz", "app.example.com", ["https"], "path"),
            ("prefix glued to a name", "GET", "/authzlogout", "app.example.com", ["https"], "path"),
            ("asterisk target", "OPTIONS", "*", "app.example.com", ["https"], "path"),
            ("absolute-form target", "GET", "http://pay.example.com/authz/x", "app.example.com", ["https"], "path"),
            ("userinfo in Host", "GET", "/authz/x", "app.example.com@pay.example.com", ["https"], "host"),
        ])
    func malformed(label: String, method: String, path: String, host: String, proto: [String], field: String) throws {
        let service = try Service()
        let response = try service.check(method: method, path: path, host: host, proto: proto)
        #expect(response.status == 400, "\(label): \(response.status) \(response.body)")
        #expect(response.headers["content-type"] == "application/problem+json", "\(label)")
        #expect(response.json?["field"] as? String == field, "\(label): \(response.body)")
        #expect(response.headers["x-navigation-decision"] == nil, "\(label)")
    }

    @Test("no Host, two Hosts, CONNECT and a body are refused before any decision")
    func refusedByTheServer() throws {
        let service = try Service()
        #expect(try service.check(path: "/authz/welcome", host: nil).status == 400)
        let twice = try service.check(path: "/authz/welcome", extra: [("host", "pay.example.com")])
        #expect(twice.status == 400)
        let connect = try service.check(method: "CONNECT", path: "app.example.com:443")
        #expect((400...599).contains(connect.status) && connect.headers["x-navigation-decision"] == nil)
        let connection = try RawConnection(port: service.port)
        connection.send(
            "POST /authz/welcome HTTP/1.1\r\nhost: app.example.com\r\nx-forwarded-proto: https\r\n"
                + "content-length: 5\r\nconnection: close\r\n\r\nhello")
        let body = connection.receiveResponse()
        #expect(body.status == 413 && body.headers["x-navigation-decision"] == nil)
    }

    @Test("shadow verdicts are sent as x-navigation-shadow and counted")
    func shadow() throws {
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "audit", "type": "cancel", "mode": "shadow", "match": {"paths": ["/audited"]}}]}
            """
        let service = try Service(config: config)
        let response = try service.check(path: "/audited")
        #expect(response.status == 200)
        #expect(response.headers["x-navigation-shadow"] == "audit=cancel")
        let metrics = try service.metrics()
        #expect(metrics.contains(#"navpolicyd_shadow_decisions_total{handler="audit",decision="cancel"} 1"#))
    }

    @Test("Sec-Fetch-Dest forwarded by Envoy sets the target frame, exactly as /v1/decide's targetFrame")
    func fetchMetadata() throws {
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "no-frames", "type": "cancel", "match": {"paths": ["/embed"], "targetFrames": ["sub"]}}]}
            """
        let service = try Service(config: config)
        #expect(try service.check(path: "/embed").status == 200)
        #expect(try service.check(path: "/embed", extra: [("sec-fetch-dest", "iframe")]).status == 403)
    }

    /// A vector's request as a browser would put it on the wire for Envoy to forward: the
    /// canonical URL's scheme, host and path (no userinfo, no fragment: neither is ever sent),
    /// or the URL as written when the engine refuses it. Nil when no HTTP request can carry it:
    /// a scheme other than http(s), userinfo, or a navigation type Fetch Metadata cannot say.
    struct WireRequest {
        var method: String
        var scheme: String
        var host: String
        var path: String
        var fetchHeaders: [(String, String)]
        /// The URL `/v1/decide` gets for the same request.
        var url: String { scheme + "://" + host + path }

        init?(_ request: [String: String], canonical: String?) {
            let method = request["method"] ?? "GET"
            var url = canonical ?? request["url"] ?? ""
            if let hash = url.firstIndex(of: "#") { url = String(url[..<hash]) }
            guard let separator = url.range(of: "://") else { return nil }
            let scheme = String(url[..<separator.lowerBound])
            guard ["http", "https"].contains(scheme.lowercased()) else { return nil }
            let rest = url[separator.upperBound...]
            let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            let host = String(rest[..<pathStart])
            guard !host.contains("@"), host.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
            var path = String(rest[pathStart...])
            if !path.hasPrefix("/") { path = "/" + path }
            guard path.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
            var headers: [(String, String)] = []
            switch (request["navigationType"] ?? "other", method.uppercased()) {
            case ("other", _): break
            case ("linkActivated", let verb) where verb != "POST": headers.append(("sec-fetch-mode", "navigate"))
            case ("formSubmitted", "POST"): headers.append(("sec-fetch-mode", "navigate"))
            default: return nil
            }
            if request["targetFrame"] == "sub" { headers.append(("sec-fetch-dest", "iframe")) }
            self.method = method
            self.scheme = scheme
            self.host = host
            self.path = path
            self.fetchHeaders = headers
        }
    }

    @Test("every conformance vector Envoy could send is decided alike by /v1/decide and the HTTP service")
    func conformanceVectorsAgree() throws {
        var compared = 0
        var refusedAlike = 0
        var notSendable: [String] = []
        for name in ConformanceVectorTests.files {
            let vector = try ConformanceVectorTests.vector(name)
            let service = try Service(config: try ConformanceVectorTests.policy(of: vector))
            for testCase in try #require(vector["cases"] as? [[String: Any]]) {
                let request = try #require(testCase["request"] as? [String: String])
                let expect = try #require(testCase["expect"] as? [String: Any])
                let label = "\(name): \(testCase["name"] ?? "?")"
                let invalid = expect["invalidRequest"] as? Bool == true
                guard let wire = WireRequest(request, canonical: invalid ? nil : expect["url"] as? String) else {
                    notSendable.append(label)
                    continue
                }
                var arguments = ["-G"]
                let fields = ["url": wire.url, "method": wire.method]
                for key in ["url", "method", "navigationType", "targetFrame"] {
                    arguments += ["--data-urlencode", "\(key)=\(fields[key] ?? request[key] ?? "")"]
                }
                let decided = try Curl.request(service.daemon.baseURL + "/v1/decide", arguments)
                let checked = try service.check(
                    method: wire.method, path: wire.path, host: wire.host, proto: [wire.scheme],
                    extra: wire.fetchHeaders)
                if invalid || decided.status == 400 {
                    #expect(decided.status == 400 && checked.status == 400, "\(label): \(checked.status) \(checked.body)")
                    #expect(checked.headers["x-navigation-decision"] == nil, "\(label)")
                    refusedAlike += 1
                    continue
                }
                let answer = try #require(decided.json, "\(label)")
                let verdict = answer["decision"] as? String
                #expect(checked.headers["x-navigation-decision"] == verdict, "\(label): \(checked.status)")
                #expect(checked.headers["x-navigation-handler"] == answer["handler"] as? String, "\(label)")
                #expect(checked.headers["x-navigation-action"] == answer["action"] as? String, "\(label)")
                let location = answer["location"] as? String
                switch (verdict, location) {
                case ("allow", _): #expect(checked.status == 200, "\(label)")
                case (_, let location?): #expect(checked.status == 302 && checked.headers["location"] == location, "\(label)")
                default:
                    #expect(checked.status == 403, "\(label)")
                    // HEAD: the same answer, no body to compare.
                    guard wire.method.uppercased() != "HEAD" else { break }
                    let body = try #require(checked.json?["decision"] as? [String: Any], "\(label)")
                    #expect(body["url"] as? String == answer["url"] as? String, "\(label)")
                }
                // Where nothing had to be dropped to send it, the vector's own answer holds too.
                if expect["url"] as? String == wire.url {
                    #expect(verdict == expect["decision"] as? String, "\(label)")
                    #expect(location == expect["location"] as? String, "\(label)")
                }
                compared += 1
            }
        }
        // Recorded so a shrinking run shows: 201 vectors, of which these many reach Envoy.
        print("ext_authz vectors: \(compared) compared, \(refusedAlike) refused alike, \(notSendable.count) not sendable")
        #expect(compared >= 150)
        #expect(refusedAlike >= 5)
    }

    @Test("the policy test table's odd spellings, sent raw as a client may, decide as /v1/decide and the table say")
    func rawSpellingsOfThePolicyTable() throws {
        let url = BinaryRunner.packageRoot.appendingPathComponent("config/navpolicy.tests.json")
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        let service = try Service()
        var compared = 0
        for testCase in cases {
            let raw = try #require(testCase["url"] as? String)
            let expect = try #require(testCase["expect"] as? [String: Any])
            var request = ["url": raw, "method": testCase["method"] as? String ?? "GET"]
            request["navigationType"] = testCase["navigationType"] as? String
            request["targetFrame"] = testCase["targetFrame"] as? String
            // The URL as written, not canonical: Envoy forwards the path the client sent.
            guard let wire = WireRequest(request, canonical: nil), !wire.host.contains("\\") else { continue }
            let label = "\(testCase["name"] ?? raw)"
            let decided = try #require(
                try Curl.request(
                    service.daemon.baseURL + "/v1/decide",
                    ["-G", "--data-urlencode", "url=\(wire.url)", "--data-urlencode", "method=\(wire.method)"]
                        + ["--data-urlencode", "navigationType=\(request["navigationType"] ?? "other")"]
                        + ["--data-urlencode", "targetFrame=\(request["targetFrame"] ?? "main")"]
                ).json, "\(label)")
            let checked = try service.check(
                method: wire.method, path: "/authz" + wire.path, host: wire.host, proto: [wire.scheme],
                extra: wire.fetchHeaders)
            #expect(checked.headers["x-navigation-decision"] == decided["decision"] as? String, "\(label)")
            #expect(checked.headers["x-navigation-decision"] == expect["decision"] as? String, "\(label)")
            #expect(checked.headers["x-navigation-handler"] == decided["handler"] as? String, "\(label)")
            compared += 1
        }
        #expect(compared >= 20, "\(compared) of \(cases.count)")
    }

    @Test("socket activation: a socket named ext-authz is the HTTP service, with no flag and no bind")
    func socketActivation() throws {
        let (daemon, ports) = try SystemdIntegrationTests.activated(
            names: ["api", "ext-authz"],
            config: #"{"handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}]}"#)
        let passed = try #require(ports["ext-authz"])
        let connection = try RawConnection(port: passed)
        connection.send(
            "GET /logout HTTP/1.1\r\nhost: app.example.com\r\nx-forwarded-proto: https\r\n"
                + "content-length: 0\r\nconnection: close\r\n\r\n")
        let response = connection.receiveResponse()
        #expect(response.status == 403 && response.headers["x-navigation-handler"] == "logout", "\(response.body)")
        #expect(daemon.logLines.contains { $0.contains(#""socketActivated":true"#) })
    }
}
