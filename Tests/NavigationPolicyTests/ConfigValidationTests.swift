import NavigationPolicy
import Testing

@Suite("Config validation")
struct ConfigValidationTests {
    @Test("every error is reported at once, each with its JSON pointer")
    func everyErrorAtOnce() {
        let issues = configIssues(
            """
            {
              "defaultDecision": "deny",
              "handlrs": [],
              "handlers": [
                {"name": "a", "type": "logout", "match": {"paths": ["/logout"]}},
                {"name": "a", "type": "logut"},
                {"name": "p", "type": "payment-redirect", "match": {"hosts": ["*.", "ok.example", "a:80"], "paths": []},
                 "location": "https://x.example/?u={uri}"},
                {"name": "q", "type": "about", "location": "https://x.example/", "match": {"pathz": ["/a"], "caseSensitive": "yes"}},
                {"type": "allow", "match": {"methods": ["GET", "BAD METHOD"], "navigationTypes": ["click"], "targetFrames": ["top"]}},
                "not an object"
              ]
            }
            """)
        let expected = [
            #"/handlrs: unknown field "handlrs"; did you mean "handlers"?"#,
            #"/defaultDecision: "deny": expected "allow" or "cancel""#,
            #"/handlers/1/name: duplicate handler name "a" (first used at /handlers/0)"#,
            #"/handlers/1/type: unknown handler type "logut"; did you mean "logout"?"#,
            #"/handlers/2/match/hosts/0: "*.": empty host pattern"#,
            #"/handlers/2/match/hosts/2: "a:80": host patterns must not contain a port"#,
            #"/handlers/2/match/paths: empty list; omit the field to match any value"#,
            #"/handlers/2/location: "https://x.example/?u={uri}": unknown template placeholder "{uri}"; known: {url}"#,
            #"/handlers/3/location: unknown field "location"; expected one of "name", "type", "match", "mode", "action", "response""#,
            #"/handlers/3/match/pathz: unknown field "pathz"; did you mean "paths"?"#,
            #"/handlers/3/match/caseSensitive: expected true or false, got a string"#,
            #"/handlers/4/name: required field is missing"#,
            #"/handlers/4/match/methods/1: "BAD METHOD": not an HTTP method token"#,
            #"/handlers/4/match/navigationTypes/0: "click": unknown value; expected one of "linkActivated", "formSubmitted", "backForward", "reload", "formResubmitted", "other""#,
            #"/handlers/4/match/targetFrames/0: "top": unknown value; expected one of "main", "sub""#,
            #"/handlers/5: expected an object, got a string"#,
        ]
        for line in expected {
            #expect(issues.contains(line), "missing: \(line)\nall:\n\(issues.joined(separator: "\n"))")
        }
        #expect(issues.count == expected.count, "\(issues.joined(separator: "\n"))")
    }

    @Test(
        "malformed host patterns",
        arguments: [
            ("*", "omit \"hosts\" to match any host"), ("a.*.example", "list each host exactly"),
            ("*.*.example", "only one leading"), ("https://pay.example", "bare host name"),
            ("", "empty host pattern"), ("*.127.0.0.1", "needs a domain name"), ("exa mple.com", "invalid host"),
            ("[::1", "invalid host"),
        ])
    func malformedHosts(pattern: String, message: String) {
        let issues = configIssues(#"{"handlers":[{"name":"h","type":"cancel","match":{"hosts":["\#(pattern)"]}}]}"#)
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix("/handlers/0/match/hosts/0: ") == true, "\(issues)")
        #expect(issues.first?.contains(message) == true, "\(issues)")
    }

    @Test("wrong value types and shapes")
    func wrongTypes() {
        #expect(configIssues("[]") == ["(root): expected an object, got an array"])
        #expect(configIssues(#"{"handlers": {}}"#) == ["/handlers: expected an array of handlers, got an object"])
        #expect(
            configIssues(#"{"handlers": [{"name": 3, "type": "allow"}]}"#) == [
                "/handlers/0/name: expected a string, got a number"
            ])
        #expect(
            configIssues(#"{"handlers": [{"name": "x", "type": "allow", "match": {"hosts": "a.example"}}]}"#)
                == [#"/handlers/0/match/hosts: expected an array of strings, got a string; write ["a.example"]"#])
        #expect(
            configIssues(#"{"handlers": [{"name": "x", "type": "cancel", "match": {"paths": ["logout", "/a?b"]}}]}"#)
                == [
                    #"/handlers/0/match/paths/0: "logout": a path must start with "/""#,
                    #"/handlers/0/match/paths/1: "/a?b" in paths: paths are exact; use pathPatterns ["/a?b"]"#,
                ])
        #expect(
            configIssues(#"{"handlers": [{"name": "bad name!", "type": "allow"}]}"#).first?.hasPrefix(
                "/handlers/0/name: \"bad name!\"")
                == true)
        #expect(
            configIssues(#"{"handlers": [{"name": "x", "type": "cancel", "action": ""}]}"#).first?.hasPrefix(
                "/handlers/0/action:")
                == true)
        #expect(
            configIssues(#"{"handlers": [{"name": "x", "type": "cancel", "location": "/relative/{url}"}]}"#)
                == [#"/handlers/0/location: "/relative/{url}": the location is not an absolute URL"#])
        #expect(configIssues(#"{"server": 1}"#) == ["/server: expected an object, got a number"])
        #expect(configIssues(#"{"a": 1, "a": 2}"#).contains(#"/a: duplicate key "a""#))
    }

    @Test("malformed JSON is reported with its line and column")
    func malformedJSON() {
        let issues = configIssues("{\n  \"handlers\": [,]\n}")
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix("(root): invalid JSON at line 2, column 16") == true, "\(issues)")
        #expect(configIssues("").first?.contains("invalid JSON") == true)
        #expect(configIssues(String(repeating: "[", count: 10_000)).first?.contains("nesting deeper") == true)
    }

    @Test("reserved sections are accepted; the default policy compiles")
    func reservedAndDefault() throws {
        #expect(configIssues(#"{"server": {"x": 1}, "intake": {}, "proxy": {}}"#) == [])
        let policy = try compile(defaultPolicyJSON)
        #expect(policy.links.map(\.name) == ["logout", "about", "payment"])
        #expect(policy.links.map(\.type) == ["logout", "about", "payment-redirect"])
        #expect(policy.defaultVerdict == .allow)
    }

    @Test("config paths and hosts are canonicalized like request URLs")
    func canonicalConfig() throws {
        let policy = try compile(
            #"{"handlers":[{"name":"u","type":"cancel","match":{"hosts":["ＥＸＡＭＰＬＥ.com."],"paths":["/über/./x/"]}}]}"#)
        #expect(try decide(policy, "https://example.com/%C3%BCber/x").handler == "u")
        #expect(try decide(policy, "https://EXAMPLE.com/Über/x").handler == nil, "non-ASCII is not case-folded")
    }
}
