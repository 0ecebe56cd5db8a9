import JSONSupport
import NavigationPolicy
import Testing

@Suite("Chain, handler types and match semantics")
struct ChainTests {
    @Test("the handler table: decision, action and location per type")
    func handlerTable() throws {
        let policy = try compile(
            """
            {"handlers": [
              {"name": "out", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "info", "type": "about", "match": {"paths": ["/about"]}},
              {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]},
               "location": "https://checkout.example.com/open?target={url}"},
              {"name": "pay-plain", "type": "payment-redirect", "match": {"hosts": ["pay2.example.com"]}},
              {"name": "block", "type": "cancel", "match": {"paths": ["/blocked"]}},
              {"name": "custom", "type": "cancel", "action": "show-settings", "location": "app://settings?from={url}",
               "match": {"paths": ["/settings"]}},
              {"name": "ok", "type": "allow", "match": {"paths": ["/ok"]}}
            ]}
            """)
        let logout = try decide(policy, "https://a.example/logout")
        #expect(
            logout == Decision(verdict: .cancel, handler: "out", action: "logout", location: nil, url: "https://a.example/logout")
        )
        #expect(try decide(policy, "https://a.example/about").action == "show-about")

        let pay = try decide(policy, "https://pay.example.com/c?a=1&b=é")
        #expect(pay.action == "open-external")
        #expect(pay.url == "https://pay.example.com/c?a=1&b=%C3%A9")
        #expect(
            pay.location == "https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fc%3Fa%3D1%26b%3D%25C3%25A9")

        let plain = try decide(policy, "https://pay2.example.com/x")
        #expect(plain.location == "https://pay2.example.com/x", "without a template the location is the href")

        let blocked = try decide(policy, "https://a.example/blocked")
        #expect(blocked.action == "block")
        #expect(blocked.location == nil)

        let custom = try decide(policy, "https://a.example/settings")
        #expect(custom.action == "show-settings")
        #expect(custom.location == "app://settings?from=https%3A%2F%2Fa.example%2Fsettings")

        let allowed = try decide(policy, "https://a.example/ok")
        #expect(allowed == Decision(verdict: .allow, handler: "ok", action: nil, location: nil, url: "https://a.example/ok"))
    }

    @Test("first handler that decides wins; an allow stops the chain")
    func firstMatchWins() throws {
        let policy = try compile(
            """
            {"defaultDecision": "cancel", "handlers": [
              {"name": "partners", "type": "allow", "match": {"hosts": ["*.partner.example"]}},
              {"name": "no-logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "second-logout", "type": "cancel", "match": {"paths": ["/logout"]}}
            ]}
            """)
        #expect(try decide(policy, "https://a.partner.example/logout").handler == "partners")
        #expect(try decide(policy, "https://app.example/logout").handler == "no-logout")
        let fallback = try decide(policy, "https://app.example/home")
        #expect(
            fallback == Decision(verdict: .cancel, handler: nil, action: "block", location: nil, url: "https://app.example/home"))
    }

    @Test("default allow has no action; an empty chain is valid")
    func emptyChain() throws {
        let policy = try compile(#"{"handlers": []}"#)
        #expect(
            try decide(policy, "data:text/plain,hi")
                == Decision(verdict: .allow, handler: nil, action: nil, location: nil, url: "data:text/plain,hi"))
        let bare = try compile("{}")
        #expect(try decide(bare, "file:///etc/passwd").verdict == .allow)
    }

    @Test("wildcard hosts match subdomains on a label boundary, not the apex")
    func wildcardHosts() throws {
        let policy = try compile(#"{"handlers":[{"name":"w","type":"cancel","match":{"hosts":["*.example.com"]}}]}"#)
        #expect(try decide(policy, "https://a.example.com/").handler == "w")
        #expect(try decide(policy, "https://a.b.example.com/").handler == "w")
        #expect(try decide(policy, "https://A.Example.COM./").handler == "w")
        #expect(try decide(policy, "https://example.com/").handler == nil)
        #expect(try decide(policy, "https://badexample.com/").handler == nil)
        #expect(try decide(policy, "https://example.com.evil.io/").handler == nil)
        #expect(try decide(policy, "mailto:someone@a.example.com").handler == nil, "no host, no host match")
    }

    @Test("path prefixes match on a segment boundary")
    func pathPrefixes() throws {
        let policy = try compile(#"{"handlers":[{"name":"p","type":"cancel","match":{"pathPrefixes":["/checkout/"]}}]}"#)
        #expect(try decide(policy, "https://a.example/checkout").handler == "p")
        #expect(try decide(policy, "https://a.example/checkout/").handler == "p")
        #expect(try decide(policy, "https://a.example/Checkout/x/y").handler == "p")
        #expect(try decide(policy, "https://a.example/checkouts").handler == nil)
        #expect(try decide(policy, "https://a.example/x/checkout").handler == nil)
        let root = try compile(#"{"handlers":[{"name":"all","type":"cancel","match":{"pathPrefixes":["/"]}}]}"#)
        #expect(try decide(root, "https://a.example/anything/at/all").handler == "all")
    }

    @Test("caseSensitive applies to paths only")
    func caseSensitivity() throws {
        let policy = try compile(
            #"{"handlers":[{"name":"c","type":"cancel","match":{"paths":["/Admin"],"hosts":["APP.example"],"caseSensitive":true}}]}"#
        )
        #expect(try decide(policy, "https://app.example/Admin").handler == "c")
        #expect(try decide(policy, "https://APP.EXAMPLE/%41dmin").handler == "c")
        #expect(try decide(policy, "https://app.example/admin").handler == nil)
        #expect(try decide(policy, "https://app.example/ADMIN").handler == nil)
    }

    @Test("every field given must hold; within a list any entry may")
    func conjunction() throws {
        let policy = try compile(
            """
            {"handlers":[{"name":"form","type":"cancel","match":{
              "schemes":["https"], "hosts":["a.example","b.example"], "paths":["/submit"],
              "methods":["post","PUT"], "navigationTypes":["formSubmitted","formResubmitted"], "targetFrames":["main"]}}]}
            """)
        func check(_ url: String, _ method: String, _ type: NavigationType, _ frame: TargetFrame) throws -> String? {
            try decide(policy, url, method: method, navigationType: type, targetFrame: frame).handler
        }
        #expect(try check("https://b.example/submit", "POST", .formSubmitted, .main) == "form")
        #expect(try check("https://a.example/submit", "put", .formResubmitted, .main) == "form")
        #expect(try check("http://a.example/submit", "POST", .formSubmitted, .main) == nil)
        #expect(try check("https://c.example/submit", "POST", .formSubmitted, .main) == nil)
        #expect(try check("https://a.example/other", "POST", .formSubmitted, .main) == nil)
        #expect(try check("https://a.example/submit", "GET", .formSubmitted, .main) == nil)
        #expect(try check("https://a.example/submit", "POST", .linkActivated, .main) == nil)
        #expect(try check("https://a.example/submit", "POST", .formSubmitted, .sub) == nil)
    }

    @Test("explain lists each handler consulted and why")
    func explain() throws {
        let policy = try compile(defaultPolicyJSON)
        let decision = try policy.decide(NavigationRequest(url: "https://pay.example.com/about"), explain: true)
        #expect(decision.handler == "about")
        #expect(decision.trace?.map(\.outcome) == [.passed, .decided])
        #expect(decision.trace?.first?.reason == #"path "/about" is not in paths"#)
        #expect(decision.trace?.first?.field == .paths)
        #expect(decision.trace?.last?.reason == #"matched: paths[0] "/about" ~ "/about""#)
        let signOut = try policy.decide(NavigationRequest(url: "https://a.example/SIGN_OUT/"), explain: true)
        #expect(signOut.trace?.last?.reason == #"matched: paths[1] "/sign_out" ~ "/SIGN_OUT/""#)
        #expect(
            signOut.trace?.last?.matched == [
                TraceStep.Match(field: .paths, index: 1, entry: "/sign_out", value: "/SIGN_OUT/")
            ])
        let none = try policy.decide(NavigationRequest(url: "https://x.example/"), explain: true)
        #expect(none.trace?.count == 4, "three handlers, then the default as a step of its own")
        #expect(none.trace?.dropLast().last?.reason == #"host "x.example" is not in hosts"#)
        #expect(none.trace?.last?.handler == "defaultDecision")
        #expect(none.trace?.last?.reason == #"no handler decided: defaultDecision is "allow""#)
        #expect(try policy.decide(NavigationRequest(url: "https://x.example/")).trace == nil)
    }

    @Test("decision JSON has exactly the contract fields in order")
    func decisionJSON() throws {
        let decision = try decide(try compile(defaultPolicyJSON), "https://app.example.com/about")
        #expect(
            decision.jsonObject.members.map(\.key) == ["decision", "handler", "action", "location", "url"])
        #expect(
            JSONValueText(decision)
                == #"{"decision":"cancel","handler":"about","action":"show-about","location":null,"url":"https://app.example.com/about"}"#
        )
    }

    @Test("invalid requests are rejected, never decided")
    func invalidRequests() throws {
        let policy = try compile(defaultPolicyJSON)
        for (request, field) in [
            (NavigationRequest(url: "not a url"), "url"),
            (NavigationRequest(url: "https://exa mple.com/"), "url"),
            (NavigationRequest(url: "http://[::1"), "url"),
            (NavigationRequest(url: ""), "url"),
            (NavigationRequest(url: "https://a.example/", method: "GE T"), "method"),
            (NavigationRequest(url: "https://a.example/", method: ""), "method"),
            (NavigationRequest(url: "https://a.example/", sourceURL: "::"), "sourceURL"),
            (NavigationRequest(url: "https://a.example/" + String(repeating: "a", count: 40_000)), "url"),
        ] {
            #expect(throws: NavigationRequestError.self, "\(request.url.prefix(40))") {
                try policy.decide(request)
            }
            do {
                _ = try policy.decide(request)
            } catch {
                #expect(error.field == field)
            }
        }
    }
}

private func JSONValueText(_ decision: Decision) -> String {
    JSONValue.object(decision.jsonObject).serialized
}
