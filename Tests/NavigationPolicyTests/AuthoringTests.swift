import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import Testing

/// Lint, shadow mode, coverage and diff: the tools that make a policy safe to change.
@Suite("Authoring: lint, shadow, coverage, diff")
struct AuthoringTests {
    func warnings(_ handlers: String) throws -> [String] {
        PolicyLint.warnings(try compile(#"{"handlers": [\#(handlers)]}"#)).map(\.description)
    }

    @Test("a handler after a superset can never decide; order and field coverage are exact")
    func unreachable() throws {
        let after = try warnings(
            #"""
            {"name": "all-admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}},
            {"name": "users", "type": "about", "match": {"paths": ["/admin/users"], "hosts": ["a.example"]}},
            {"name": "catch-all", "type": "allow"},
            {"name": "never", "type": "cancel", "match": {"hosts": ["b.example"]}}
            """#)
        #expect(
            after == [
                #"/handlers/1: handler "users" can never decide: the earlier handler "all-admin" matches every request it matches"#,
                #"/handlers/3: handler "never" can never decide: the earlier handler "catch-all" matches every request it matches"#,
            ])
        // Narrower first is the right order: nothing to say.
        #expect(
            try warnings(
                #"""
                {"name": "users", "type": "about", "match": {"paths": ["/admin/users"]}},
                {"name": "all-admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}},
                {"name": "sub", "type": "cancel", "match": {"hosts": ["*.example.com"], "methods": ["POST"]}},
                {"name": "apex", "type": "cancel", "match": {"hosts": ["example.com"]}},
                {"name": "strict", "type": "cancel", "match": {"paths": ["/A"], "caseSensitive": true}},
                {"name": "loose", "type": "cancel", "match": {"paths": ["/a"]}}
                """#) == [])
        // A wildcard covers deeper wildcards; a shadow handler never makes later ones unreachable.
        #expect(
            try warnings(
                #"""
                {"name": "w", "type": "cancel", "match": {"hosts": ["*.example.com"]}, "mode": "shadow"},
                {"name": "x", "type": "cancel", "match": {"hosts": ["*.a.example.com"]}}
                """#) == [])
        #expect(
            try warnings(
                #"""
                {"name": "w", "type": "cancel", "match": {"hosts": ["*.example.com"]}},
                {"name": "x", "type": "cancel", "match": {"hosts": ["*.a.example.com", "b.example.com"]}}
                """#
            ).first?.contains(#"handler "x" can never decide"#) == true)
        #expect(
            try warnings(
                #"""
                {"name": "p", "type": "cancel", "match": {"pathPatterns": ["/x/*"]}},
                {"name": "q", "type": "cancel", "match": {"pathPatterns": ["/x/y*"]}}
                """#
            ).first?.contains(#"handler "q" can never decide"#) == true)
    }

    @Test("duplicates, empty chain, payment without hosts, a location the policy cancels")
    func otherWarnings() throws {
        #expect(
            PolicyLint.warnings(try compile(#"{"defaultDecision": "cancel"}"#)).map(\.description) == [
                #"/handlers: the chain is empty: every request gets the default ("cancel")"#
            ])
        // A config that pulls its chain (policySource) has none of its own by design (attack round 8, F11).
        let pulling = try PolicyCompiler(sections: [ConfigSection(name: "policySource")])
            .compile(Array(#"{"policySource": {}}"#.utf8))
        #expect(PolicyLint.warnings(pulling).isEmpty)
        let found = try warnings(
            #"""
            {"name": "dup", "type": "cancel", "match": {"paths": ["/a", "/A/"], "hosts": ["x.example", "X.EXAMPLE."]}},
            {"name": "pay", "type": "payment-redirect", "match": {"paths": ["/pay"]}, "location": "https://x.example/a?u={url}"}
            """#)
        #expect(
            found == [
                #"/handlers/0/match/hosts/1: "X.EXAMPLE." repeats hosts[0] (the same after normalization)"#,
                #"/handlers/0/match/paths/1: "/A/" repeats paths[0] (the same after normalization)"#,
                #"/handlers/1/match: payment-redirect without hosts sends matching navigations on every host to the system browser"#,
                #"/handlers/1/location: location "https://x.example/a?u=https%3A%2F%2Fexample.com%2F" is itself cancelled (by "dup"): the app would loop"#,
            ])
    }

    @Test("a shadow handler records what it would decide and the chain goes on")
    func shadow() throws {
        let policy = try compile(
            #"""
            {"handlers": [
              {"name": "new-block", "type": "cancel", "mode": "shadow", "match": {"pathPatterns": ["/admin/*"]}},
              {"name": "logout", "type": "logout", "match": {"pathPrefixes": ["/admin/logout"]}}
            ]}
            """#)
        let passed = try decide(policy, "https://a.example/admin/users")
        #expect(passed.verdict == .allow && passed.handler == nil)
        #expect(passed.shadow == [ShadowResult(handler: "new-block", verdict: .cancel, action: "block", location: nil)])
        #expect(
            passed.jsonText.contains(#""shadow":[{"handler":"new-block","decision":"cancel","action":"block","location":null}]"#))
        let decided = try decide(policy, "https://a.example/admin/logout")
        #expect(decided.handler == "logout" && decided.shadow?.count == 1)
        let untouched = try decide(policy, "https://a.example/home")
        #expect(untouched.shadow == nil)
        #expect(!untouched.jsonText.contains("shadow"), "no member unless there is something to say")
        let explained = try policy.decide(NavigationRequest(url: "https://a.example/admin/users"), explain: true)
        #expect(explained.trace?.map(\.outcome) == [.shadow, .passed, .decided])
        #expect(explained.shadow == passed.shadow)
        #expect(
            configIssues(#"{"handlers": [{"name": "x", "type": "cancel", "mode": "dry-run"}]}"#).first?.contains(
                #"expected "enforce""#) == true)
    }

    @Test("coverage counts handlers and each host, path, prefix and pattern entry")
    func coverage() throws {
        let policy = try compile(
            #"""
            {"handlers": [
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}},
              {"name": "admin", "type": "cancel", "match": {"hosts": ["a.example", "*.b.example"], "pathPatterns": ["/admin/*"]}}
            ]}
            """#)
        var coverage = PolicyCoverage(policy: policy)
        #expect(coverage.items.count == 7)
        #expect(coverage.percent == 0)
        for url in ["https://x.example/logout", "https://a.example/admin/x", "https://a.example/sign_out"] {
            coverage.record(try policy.decide(NavigationRequest(url: url), explain: true))
        }
        let missing = coverage.items.filter { !$0.covered }.map { $0.handler + " " + ($0.entry ?? "") }
        #expect(missing == [#"admin hosts[1] "*.b.example""#])
        #expect(abs(coverage.percent - 600.0 / 7) < 0.001)
    }

    @Test("diff groups changes by old → new handler, with counts and examples")
    func diff() throws {
        let old = try compile(defaultPolicyJSON)
        let new = try compile(
            #"""
            {"handlers": [
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}
            ]}
            """#)
        var diff = PolicyDiff(old: old, new: new, examplesPerGroup: 1)
        for url in [
            "https://a.example/logout", "https://a.example/sign_out", "https://a.example/admin/1", "https://a.example/admin/2",
            "https://a.example/home", "not a url",
        ] {
            diff.add(NavigationRequest(url: url))
        }
        #expect(diff.total == 6 && diff.changed == 3 && diff.invalid == 1)
        #expect(diff.sortedGroups.map { "\($0.from) → \($0.to) \($0.count)" } == ["(default) → admin 2", "logout → (default) 1"])
        #expect(diff.sortedGroups.first?.examples.count == 1)
    }
}

extension Decision {
    /// The decision object as JSON text.
    fileprivate var jsonText: String { String(decoding: JSONValue.object(jsonObject).serializedBytes, as: UTF8.self) }
}
