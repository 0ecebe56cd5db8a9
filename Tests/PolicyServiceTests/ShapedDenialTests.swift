import HTTPServer
import JSONSupport
import NavigationPolicy
import Testing

@testable import PolicyService

/// A handler's `response` through the ext_authz mapping (`DenialShape`) and `extAuthz.dryRun`,
/// without sockets; the live suites drive the same through every front end.
@Suite("Shaped denials and dry run (ext_authz mapping)")
struct ShapedDenialTests {
    static let config = """
        {
          "defaultDecision": "cancel",
          "handlers": [
            { "name": "app", "type": "allow", "match": { "paths": ["/home"] } },
            { "name": "retired", "type": "cancel", "match": { "pathPrefixes": ["/v1/"] },
              "response": { "status": 410, "headers": { "Link": "<https://app.example/v2/>" },
                            "removeRequestHeaders": ["Cookie"] } },
            { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example"] },
              "response": { "headers": { "X-Reason": "checkout" } } }
          ]
        }
        """

    private func check(_ harness: ServiceHarness, dryRun: Bool = false) -> ExtAuthzCheck {
        var settings = ExtAuthzSettings()
        settings.dryRun = dryRun
        return ExtAuthzCheck(
            decisions: harness.services.decisions(for: .extAuthzGRPC), settings: settings)
    }

    private func request(_ path: String, host: String = "app.example") -> ExtAuthzRequest {
        ExtAuthzRequest(method: "GET", scheme: "https", host: host, path: path, headers: [])
    }

    private func value(_ name: String, in fields: [(name: String, value: String)]) -> String? {
        fields.first { $0.name == name }?.value
    }

    @Test("the handler's status and fields; the problem's status member says the same; a redirect keeps 302")
    func shaped() throws {
        let harness = try ServiceHarness(config: Self.config)
        let answer = check(harness).check(request("/v1/items"))
        #expect(!answer.allowed && answer.status == 410)
        #expect(value("link", in: answer.clientHeaders) == "<https://app.example/v2/>")
        #expect(value("x-navigation-handler", in: answer.clientHeaders) == "retired")
        #expect(HTTPResponse(status: 410, body: answer.body).object["status"]?.integerValue == 410)
        #expect(answer.removeUpstreamHeaders.isEmpty, "enforced: nothing goes upstream")
        let redirect = check(harness).check(request("/", host: "pay.example"))
        #expect(redirect.status == 302 && value("x-reason", in: redirect.clientHeaders) == "checkout")
        // The default decision has no handler, so no response: 403 as ever.
        #expect(check(harness).check(request("/other")).status == 403)
    }

    @Test("dry run: every cancel, the default decision's too, is an allow marked x-navigation-dry-run and counted")
    func dryRun() throws {
        let harness = try ServiceHarness(config: Self.config)
        let metrics = harness.services.metrics
        let dry = check(harness, dryRun: true)
        let retired = dry.check(request("/v1/items"))
        #expect(retired.allowed && retired.status == 200)
        #expect(value("x-navigation-dry-run", in: retired.upstreamHeaders) == "cancel")
        #expect(value("x-navigation-decision", in: retired.upstreamHeaders) == "allow")
        #expect(value("x-navigation-handler", in: retired.upstreamHeaders) == nil)
        #expect(value("x-navigation-action", in: retired.upstreamHeaders) == nil)
        #expect(retired.removeUpstreamHeaders == ["cookie"])
        let byDefault = dry.check(request("/other"))
        #expect(byDefault.allowed && value("x-navigation-dry-run", in: byDefault.upstreamHeaders) == "cancel")
        let allowed = dry.check(request("/home"))
        #expect(allowed.allowed && value("x-navigation-dry-run", in: allowed.upstreamHeaders) == nil)
        #expect(metrics.dryRun.count(frontend: "ext_authz_grpc") == 2)
        #expect(
            metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil).contains(
                #"navpolicyd_dry_run_cancels_total{frontend="ext_authz_grpc"} 2"#))
    }

    @Test("without dry run the family is not shown")
    func noFamilyWithoutDryRun() throws {
        let harness = try ServiceHarness(config: Self.config)
        _ = check(harness).check(request("/v1/items"))
        #expect(
            !harness.services.metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil).contains(
                "navpolicyd_dry_run_cancels_total"))
    }

    @Test("the core's token rule (it links no HTTP module) is FieldSyntax's, byte for byte")
    func tokenRuleAgrees() {
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPToken.isTokenByte(byte) == FieldSyntax.isToken([byte]), "\(byte)")
        }
    }

    @Test("the decision-log line of a cancel let through says dryRun; others do not")
    func logLine() throws {
        let decision = Decision(verdict: .cancel, handler: nil, action: "block", location: nil, url: "https://a.example/")
        var writer = JSONWriter()
        let navigation = NavigationRequest(url: "https://a.example/")
        let id = DecisionIdentifiers().nextID()
        for dryRun in [false, true] {
            #expect(
                DecisionRecorder.writeLogLine(
                    decision, for: navigation, id: id, origin: DecisionOrigin(.extAuthzGRPC, clientAddress: "10.0.0.7"),
                    revisionTail: DecisionRecorder.logLineEnd(revision: "r"),
                    redaction: QueryRedaction(names: []), at: nil, into: &writer, dryRun: dryRun))
            #expect(String(decoding: writer.bytes, as: UTF8.self).contains(#""dryRun":true"#) == dryRun)
        }
    }
}
