import JSONSupport
import NavigationPolicy
import PolicyService
import Testing

/// The pieces the lead wires into the service: the `POST /v1/policy/diff` body handling and
/// the shadow-decision counter (no sockets: both are plain functions).
@Suite("Policy diff request and shadow metrics")
struct PolicyDiffRequestTests {
    let live: CompiledPolicy

    init() throws {
        live = try ServerSettings.compiler.compile(
            Array(#"{"handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}]}"#.utf8))
    }

    func report(_ body: String, log: [String] = []) -> Result<String, PolicyDiffRequest.Failure> {
        PolicyDiffRequest.report(body: Array(body.utf8), live: live, compiler: ServerSettings.compiler) { log }
            .map { String(decoding: JSONValue.object($0).serializedBytes, as: UTF8.self) }
    }

    @Test("posted requests or the recent log are replayed against the candidate")
    func replays() throws {
        let candidate = #"{"handlers": [{"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}]}"#
        let posted = try report(
            #"{"config": \#(candidate), "requests": [{"url": "https://a.example/admin/x"}, {"url": "https://a.example/"}]}"#
        ).get()
        #expect(posted.hasPrefix(#"{"total":2,"changed":1,"invalid":0,"groups":[{"from":"(default)","to":"admin","count":1"#))
        #expect(posted.hasSuffix(#""source":"posted"}"#))
        let fromLog = try report(
            #"{"config": \#(candidate)}"#,
            log: [
                #"{"request":{"url":"https://a.example/logout"}}"#, "torn line {",
                #"{"request":{"url":"https://a.example/admin/y"}}"#,
            ]
        ).get()
        #expect(fromLog.hasPrefix(#"{"total":2,"changed":2"#))
        #expect(fromLog.hasSuffix(#""source":"decisionLog"}"#))
    }

    @Test("bad bodies and invalid candidates are refused with what is wrong")
    func refusals() {
        #expect(throws: PolicyDiffRequest.Failure.self) { try report("{").get() }
        #expect(
            throws: PolicyDiffRequest.Failure.invalidConfig([
                #"/handlers/0/match/paths/0: "/admin/*" in paths: paths are exact; use pathPrefixes ["/admin"] or pathPatterns ["/admin/*"]"#
            ])
        ) {
            try report(#"{"config": {"handlers": [{"name": "a", "type": "cancel", "match": {"paths": ["/admin/*"]}}]}}"#).get()
        }
        #expect(
            throws: PolicyDiffRequest.Failure.invalidRequest(
                "unknown field; expected \"config\", \"requests\" or \"examples\"", field: "candidate")
        ) {
            try report(#"{"candidate": {}}"#).get()
        }
        #expect(throws: PolicyDiffRequest.Failure.self) { try report(#"{"config": {}, "requests": [{"url": 3}]}"#).get() }
    }

    @Test("shadow decisions are counted by handler and decision")
    func shadowMetrics() throws {
        let metrics = ShadowMetrics()
        let policy = try ServerSettings.compiler.compile(
            Array(#"{"handlers": [{"name": "new-block", "type": "cancel", "mode": "shadow"}]}"#.utf8))
        metrics.record(try policy.decide(NavigationRequest(url: "https://a.example/")))
        metrics.record(try policy.decide(NavigationRequest(url: "https://a.example/x")))
        metrics.record(try live.decide(NavigationRequest(url: "https://a.example/")))
        #expect(metrics.render().hasSuffix(#"navpolicyd_shadow_decisions_total{handler="new-block",decision="cancel"} 2"# + "\n"))
        #expect(ShadowMetrics().render().contains("# TYPE navpolicyd_shadow_decisions_total counter"))
    }
}
