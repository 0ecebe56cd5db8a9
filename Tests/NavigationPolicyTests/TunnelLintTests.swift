import NavigationPolicy
import PolicyAuthoring
import Testing

@Suite("lint: which handlers act on https: tunnels through the forward proxy")
struct TunnelLintTests {
    static func warnings(_ config: String) throws -> [LintWarning] {
        let policy = try compile(config)
        return PolicyLint.warnings(policy).filter { $0.kind == "pathLevelOnlyOnHTTP" }
    }

    @Test("path, method and navigation conditions are flagged when the config has a proxy; host rules are not")
    func flagsPathLevelHandlers() throws {
        let handlers = """
            "handlers": [
              {"name": "hosts", "type": "cancel", "match": {"hosts": ["blocked.test", "@internal"]}},
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "posts", "type": "cancel", "match": {"hosts": ["a.test"], "methods": ["POST"]}},
              {"name": "frames", "type": "cancel", "match": {"targetFrames": ["sub"]}}
            ]
            """
        let flagged = try Self.warnings(#"{"defaultDecision": "allow", \#(handlers), "proxy": {}}"#)
        #expect(
            flagged.map(\.pointer.description) == [
                "/handlers/1/match/paths", "/handlers/2/match/methods", "/handlers/3/match/targetFrames",
            ])
        #expect(flagged.first?.message.contains("http: only") == true)
        // Without a proxy there are no tunnels: nothing to say.
        #expect(try Self.warnings(#"{"defaultDecision": "allow", \#(handlers)}"#).isEmpty)
    }
}
