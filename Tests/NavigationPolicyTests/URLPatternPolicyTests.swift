import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// `match.urlPatterns` in a policy: what the config takes, what a pattern is matched against,
/// and that it fails closed where the standard's reading and the match form differ.
@Suite("match.urlPatterns")
struct URLPatternPolicyTests {
    func policy(_ patterns: String, type: String = "cancel", caseSensitive: Bool = false) throws -> CompiledPolicy {
        let sensitive = caseSensitive ? #", "caseSensitive": true"# : ""
        return try compile(
            #"{"handlers": [{"name": "p", "type": "\#(type)", "match": {"urlPatterns": \#(patterns)\#(sensitive)}}]}"#)
    }

    func handler(_ policy: CompiledPolicy, _ url: String) throws -> String? {
        try decide(policy, url).handler
    }

    @Test("pattern strings and URLPatternInit objects; a handler matches when any pattern does")
    func entries() throws {
        let admin = try policy(#"["https://*.example.com/admin/*", {"pathname": "/pay/return", "search": "token=*"}]"#)
        #expect(try handler(admin, "https://shop.example.com/admin/users") == "p")
        #expect(try handler(admin, "https://example.com/admin/users") == nil, "*. needs a label")
        #expect(try handler(admin, "http://shop.example.com/admin/users") == nil, "the scheme is part of the pattern")
        #expect(try handler(admin, "https://any.example/pay/return?token=abc") == "p")
        #expect(try handler(admin, "https://any.example/pay/return?other=1") == nil)

        let deepLink = try policy(#"[{"protocol": "myapp", "hostname": "open", "pathname": "/item/*"}]"#)
        #expect(try handler(deepLink, "myapp://open/item/7") == "p")
    }

    @Test("case follows caseSensitive: ignored by default, as for pathPatterns")
    func caseRule() throws {
        #expect(try handler(try policy(#"[{"pathname": "/admin/*"}]"#), "https://a.example/ADMIN/x") == "p")
        let sensitive = try policy(#"[{"pathname": "/admin/*"}]"#, caseSensitive: true)
        #expect(try handler(sensitive, "https://a.example/ADMIN/x") == nil)
        #expect(try handler(sensitive, "https://a.example/admin/x") == "p")
    }

    @Test("the match form's normalization applies: no spelling of a path dodges a pattern that pathPatterns would catch")
    func normalization() throws {
        let admin = try policy(#"[{"pathname": "/admin/*"}]"#)
        for url in [
            "https://a.example/%61dmin/x", "https://a.example/admin;jsessionid=1/x", "https://a.example/public/..;/admin/x",
            "https://a.example/admin/", "https://a.example.:443/admin/x",
        ] {
            #expect(try handler(admin, url) == "p", "\(url)")
        }
    }

    @Test("where the standard's reading and the match form differ, the reading that cancels wins")
    func failClosed() throws {
        // The allow pattern matches the URL as the standard reads it (the path keeps "..;"), but
        // servers serve /admin/x, which the next handler cancels: the cancel wins.
        let chain = try compile(
            #"""
            {"handlers": [
              {"name": "public", "type": "allow", "match": {"urlPatterns": [{"pathname": "/public/*"}]}},
              {"name": "admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}}
            ]}
            """#)
        let dodge = try decide(chain, "https://a.example/public/..;/admin/x")
        #expect(dodge.verdict == .cancel)
        #expect(dodge.handler == "admin")
        #expect(try decide(chain, "https://a.example/public/x").handler == "public")

        // And a cancel pattern that only the standard's reading matches (an escape the match form
        // decodes, so its path is /admin there) still cancels.
        let escaped = try policy(#"[{"pathname": "/%61dmin"}]"#)
        #expect(try handler(escaped, "https://a.example/%61dmin") == "p")

        let explained = try chain.decide(
            CanonicalRequest(NavigationRequest(url: "https://a.example/public/..;/admin/x")), explain: true)
        #expect(explained.pathReading?.contains("URLPattern-standard") == true, "\(explained.pathReading ?? "")")
    }

    @Test("explain names the components a pattern constrains, their inputs and groups")
    func explainGroups() throws {
        let books = try policy(#"["https://:shop.example.com/books/:id"]"#)
        let decision = try books.decide(
            CanonicalRequest(NavigationRequest(url: "https://north.example.com/books/7?x=1")), explain: true)
        let match = try #require(decision.trace?.first?.matched?.first)
        #expect(match.field == .urlPatterns)
        #expect(match.entry == "https://:shop.example.com/books/:id")
        #expect(
            match.value
                == #"https://north.example.com/books/7?x=1 (protocol "https"; hostname "north.example.com" shop="north"; port ""; pathname "/books/7" id="7")"#
        )
    }

    @Test("lint: a pathname that can never match an http(s) path warns; urlPatterns never prove a later handler unreachable")
    func lint() throws {
        let never = try policy(#"[{"pathname": "admin/*"}, {"pathname": "/ok/*"}, {"protocol": "myapp", "pathname": "x"}]"#)
        let warnings = PolicyLint.warnings(never)
        #expect(warnings.map(\.kind) == ["urlPatternNeverMatches"])
        #expect(warnings.first?.pointer.description == "/handlers/0/match/urlPatterns/0")
        #expect(warnings.first?.message.contains(#"write "/admin/*""#) == true)

        // An earlier urlPatterns handler is not taken to cover a later one (its patterns are not compared).
        let chain = try compile(
            #"""
            {"handlers": [
              {"name": "first", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/a/*"}]}},
              {"name": "second", "type": "cancel", "match": {"paths": ["/b"]}}
            ]}
            """#)
        #expect(PolicyLint.warnings(chain).isEmpty)

        // Through the forward proxy a tunnel is decided on its host alone: a path pattern is blind to it.
        let proxied = try compile(
            #"""
            {"proxy": {}, "handlers": [
              {"name": "paths", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/a/*"}]}},
              {"name": "hosts", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com"]}}
            ]}
            """#)
        #expect(PolicyLint.tunnelBlindField(of: proxied.links[0].matcher) == .urlPatterns)
        #expect(PolicyLint.tunnelBlindField(of: proxied.links[1].matcher) == nil)
    }

    @Test("config errors carry the entry's pointer and say what is wrong")
    func configErrors() {
        func issues(_ patterns: String) -> [String] {
            configIssues(#"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": \#(patterns)}}]}"#)
        }
        #expect(issues(#"["/admin/*"]"#).first?.hasPrefix("/handlers/0/match/urlPatterns/0: /admin/*: ") == true)
        #expect(issues(#"["/admin/*"]"#).first?.contains("base URL") == true)
        #expect(issues(#"[{"pathname": "/a/:id("}]"#).first?.contains("pathname pattern, offset") == true)
        #expect(issues(#"[{"path": "/a"}]"#).first?.hasPrefix("/handlers/0/match/urlPatterns/0/path: unknown field") == true)
        #expect(issues(#"[{"pathname": 1}]"#).first?.contains("must be a string") == true)
        #expect(issues("[]").first?.hasPrefix("/handlers/0/match/urlPatterns: expected a non-empty array") == true)
        #expect(issues(#"[{"pathname": "/(a(?=b))"}]"#).first?.contains("regexp") == true)
    }
}
