import HTTPServer
import JSONSupport
import NavigationPolicy
import Testing

@testable import PolicyService

/// The ext_authz mapping both Envoy transports share: request in, answer out, no socket.
@Suite("ext_authz check")
struct ExtAuthzCheckTests {
    /// payment (cancel + location), logout and about (cancel), a subframe-only block, a shadow block.
    static let config = """
        {
          "defaultDecision": "allow",
          "handlers": [
            { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example.com"] },
              "location": "https://checkout.example.com/open?target={url}" },
            { "name": "logout", "type": "logout", "match": { "paths": ["/logout"] } },
            { "name": "about", "type": "about", "match": { "paths": ["/about"] } },
            { "name": "no-frames", "type": "cancel", "match": { "paths": ["/framed"], "targetFrames": ["sub"] } },
            { "name": "audit", "type": "cancel", "mode": "shadow", "match": { "paths": ["/audited"] } }
          ]
        }
        """

    private func check(_ harness: ServiceHarness, settings: ExtAuthzSettings = ExtAuthzSettings()) -> ExtAuthzCheck {
        ExtAuthzCheck(decisions: harness.services.decisions(for: .extAuthz), settings: settings, frontend: "ext_authz_http")
    }

    private func request(
        _ path: String, method: String = "GET", scheme: String = "https", host: String = "app.example",
        headers: [(name: String, value: String)] = []
    ) -> ExtAuthzRequest {
        ExtAuthzRequest(method: method, scheme: scheme, host: host, path: path, headers: headers)
    }

    private func value(_ name: String, in fields: [(name: String, value: String)]) -> String? {
        fields.first { $0.name == name }?.value
    }

    @Test("allow: 200, lower-case x-navigation-* fields for the upstream, nothing for the client")
    func allow() throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/home?q=1"))
        #expect(answer.allowed && answer.status == 200)
        #expect(value("x-navigation-decision", in: answer.upstreamHeaders) == "allow")
        #expect(value("x-navigation-decision-id", in: answer.upstreamHeaders)?.isEmpty == false)
        #expect(answer.upstreamHeaders.allSatisfy { $0.name == $0.name.lowercased() })
        #expect(answer.clientHeaders.isEmpty && answer.body.isEmpty)
    }

    @Test("cancel: 403 with the navigation-cancelled problem and the decision fields for the client")
    func cancel() throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/about"))
        #expect(!answer.allowed && answer.status == 403)
        #expect(value("content-type", in: answer.clientHeaders) == "application/problem+json")
        #expect(value("x-navigation-decision", in: answer.clientHeaders) == "cancel")
        #expect(value("x-navigation-handler", in: answer.clientHeaders) == "about")
        #expect(value("x-navigation-action", in: answer.clientHeaders) == "show-about")
        let body = HTTPResponse(status: 403, body: answer.body).object
        #expect(body["type"]?.stringValue == ProblemRenderer.typePrefix + "navigation-cancelled")
        #expect(body["decision"]?["url"]?.stringValue == "https://app.example/about")
        #expect(answer.upstreamHeaders.isEmpty)
    }

    @Test("cancel with a location: 302 with location, no body")
    func cancelWithLocation() throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/cart?id=7", host: "pay.example.com"))
        #expect(!answer.allowed && answer.status == 302)
        let location = try #require(value("location", in: answer.clientHeaders))
        #expect(location.hasPrefix("https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fcart"))
        #expect(value("x-navigation-handler", in: answer.clientHeaders) == "payment")
        #expect(value("x-navigation-location", in: answer.clientHeaders) == nil)
        #expect(answer.body.isEmpty)
    }

    @Test(
        "a request that cannot be decided is a 400 deny with a problem (fail closed)",
        arguments: [
            ("ftp", "app.example", "/", "GET", "scheme"), ("", "app.example", "/", "GET", "scheme"),
            ("https", "", "/", "GET", "host"), ("https", "evil.example@app.example", "/", "GET", "host"),
            ("https", "app.example/x", "/", "GET", "host"), ("https", "app.example", "*", "OPTIONS", "path"),
            ("https", "app.example", "http://other.example/", "GET", "path"), ("https", "app.example", "", "GET", "path"),
            ("https", "app.example", "/a#b", "GET", "path"), ("https", "app.example", "/a\tb", "GET", "path"),
            ("https", "app.example", "/a b", "GET", "path"), ("https", "app.example", "/", "GE T", "method"),
        ])
    func undecidable(scheme: String, host: String, path: String, method: String, field: String) throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request(path, method: method, scheme: scheme, host: host))
        #expect(!answer.allowed)
        #expect(answer.status == 400)
        #expect(value("content-type", in: answer.clientHeaders) == "application/problem+json")
        let body = HTTPResponse(status: 400, body: answer.body).object
        #expect(body["type"]?.stringValue == ProblemRenderer.typePrefix + "invalid-request")
        #expect(body["field"]?.stringValue == field)
    }

    @Test("no policy loaded: a 503 deny, never an allow")
    func noPolicy() throws {
        let harness = try ServiceHarness(config: nil)
        let answer = check(harness).check(request("/"))
        #expect(!answer.allowed && answer.status == 503)
    }

    @Test("Sec-Fetch-Dest among the forwarded headers sets the target frame, read strictly")
    func fetchMetadata() throws {
        let harness = try ServiceHarness(config: Self.config)
        let check = check(harness)
        #expect(check.check(request("/framed")).allowed)
        #expect(check.check(request("/framed", headers: [("sec-fetch-dest", "iframe")])).status == 403)
        // Two values: not trusted, so the request stays a main-frame navigation.
        #expect(
            check.check(request("/framed", headers: [("sec-fetch-dest", "iframe"), ("sec-fetch-dest", "document")]))
                .allowed)
    }

    @Test("shadow verdicts travel as x-navigation-shadow and count in the shadow metric")
    func shadow() async throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/audited"))
        #expect(answer.allowed)
        #expect(value("x-navigation-shadow", in: answer.upstreamHeaders) == "audit=cancel")
        #expect(value("x-navigation-shadow", in: check(harness).check(request("/home")).upstreamHeaders) == nil)
        let metrics = await harness.metricsText()
        #expect(metrics.contains(#"navpolicyd_shadow_decisions_total{handler="audit",decision="cancel"} 1"#))
        #expect(metrics.contains(#"navpolicyd_decision_duration_seconds_count{frontend="ext_authz"} 2"#))
    }

    @Test("the scheme is read case-insensitively and the host keeps its port")
    func schemeAndPort() throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/about", scheme: "HTTP", host: "app.example:8443"))
        let body = HTTPResponse(status: 403, body: answer.body).object
        #expect(body["decision"]?["url"]?.stringValue == "http://app.example:8443/about")
    }
}

@Suite("extAuthz settings")
struct ExtAuthzSettingsTests {
    private func decode(_ json: String) -> (ExtAuthzSettings, [String]) {
        guard case .object(let object)? = try? JSONParser().parse(Array(json.utf8)) else { return (ExtAuthzSettings(), ["?"]) }
        var diagnostics = ConfigDiagnostics()
        let settings = ExtAuthzSettings.decode(ConfigObject(object, at: .root.appending("extAuthz")), diagnostics: &diagnostics)
        return (settings, diagnostics.issues.map(\.description))
    }

    @Test("keys decode; bad values are reported at their pointer")
    func decoding() {
        let (settings, issues) = decode(#"{"listen":"127.0.0.1:9191","grpcListen":"127.0.0.1:9292","pathPrefix":"/authz"}"#)
        #expect(issues.isEmpty)
        #expect(settings.listen == "127.0.0.1:9191" && settings.grpcListen == "127.0.0.1:9292")
        #expect(settings.pathPrefix == "/authz")
        for bad in [
            #"{"pathPrefix":"authz"}"#, #"{"pathPrefix":"/authz/"}"#, #"{"pathPrefix":"/a?b"}"#, #"{"pathPrefix":"/a b"}"#,
            #"{"listen":"nowhere"}"#, #"{"listen":"127.0.0.1:1","grpcListen":"127.0.0.1:1"}"#, #"{"other":1}"#,
        ] {
            let (_, issues) = decode(bad)
            #expect(issues.count == 1, "\(bad)")
            #expect(issues.first?.contains("/extAuthz") == true, "\(bad)")
        }
    }

    @Test("the prefix is removed only when the original path follows it")
    func prefix() {
        var settings = ExtAuthzSettings()
        #expect(settings.originalTarget("/a?b") == "/a?b")
        settings.pathPrefix = "/authz"
        #expect(settings.originalTarget("/authz/a?b") == "/a?b")
        #expect(settings.originalTarget("/authz/") == "/")
        #expect(settings.originalTarget("/authz") == nil)
        #expect(settings.originalTarget("/authzx/a") == nil)
        #expect(settings.originalTarget("/a") == nil)
        #expect(settings.originalTarget("/authz?x") == nil)
        #expect(settings.originalTarget("/authz*") == nil)
    }
}
