import NavigationPolicy
import Testing

/// `pathPatterns`, and the errors that stop regex and glob syntax from becoming literals
/// that never match (a fail-open policy that `validate` used to call valid).
@Suite("Path patterns and pattern advice")
struct PathPatternTests {
    func policy(_ match: String, caseSensitive: Bool = false) throws -> CompiledPolicy {
        try compile(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {\#(match)\#(caseSensitive ? #", "caseSensitive": true"# : "")}}]}"#
        )
    }

    func handler(_ policy: CompiledPolicy, _ url: String) throws -> String? {
        try decide(policy, url).handler
    }

    @Test("* spans segments, ? is one byte, the rest is literal, anchored at both ends")
    func wildcardSemantics() throws {
        let admin = try policy(#""pathPatterns": ["/admin/*"]"#)
        #expect(try handler(admin, "https://a.example/admin/users") == "p")
        #expect(try handler(admin, "https://a.example/admin/users/7/edit") == "p")
        #expect(try handler(admin, "https://a.example/ADMIN/x") == "p", "case-insensitive by default")
        #expect(try handler(admin, "https://a.example/%61dmin/x") == "p", "same normalization as paths")
        #expect(try handler(admin, "https://a.example/public/../admin/x") == "p")
        #expect(try handler(admin, "https://a.example/admin/") == "p", "a pattern ending in /* matches the directory (issue 26)")
        #expect(try handler(admin, "https://a.example/admin") == "p", "which the comparison form writes without its slash")
        #expect(try handler(admin, "https://a.example/administrator/x") == nil)
        #expect(try handler(admin, "https://a.example/x/admin/y") == nil, "anchored at the start")

        let version = try policy(#""pathPatterns": ["/api/v?/*.json"]"#)
        #expect(try handler(version, "https://a.example/api/v2/users.json") == "p")
        #expect(try handler(version, "https://a.example/api/v10/users.json") == nil, "? is exactly one")
        #expect(try handler(version, "https://a.example/api/v2/users.jsonx") == nil, "anchored at the end")

        let logout = try policy(#""pathPatterns": ["/logout*"]"#)
        for path in ["/logout", "/logout.php", "/logout/now", "/LogOut"] {
            #expect(try handler(logout, "https://a.example\(path)") == "p", "\(path)")
        }
        let sensitive = try policy(#""pathPatterns": ["/Logout*"]"#, caseSensitive: true)
        #expect(try handler(sensitive, "https://a.example/Logout/x") == "p")
        #expect(try handler(sensitive, "https://a.example/logout/x") == nil)
        #expect(try handler(try policy(#""pathPatterns": ["/*"]"#), "javascript:alert(1)") == nil, "opaque paths")
        let backtrack = try policy(#""pathPatterns": ["/*a*a*a*b"]"#)
        #expect(try handler(backtrack, "https://a.example/" + String(repeating: "a", count: 2000)) == nil)
        #expect(try handler(backtrack, "https://a.example/aaab") == "p")
    }

    @Test("pathPatterns combine with the other fields: every field given must hold")
    func combinesWithFields() throws {
        let both = try policy(#""hosts": ["a.example"], "pathPatterns": ["/x/*"]"#)
        #expect(try handler(both, "https://a.example/x/1") == "p")
        #expect(try handler(both, "https://b.example/x/1") == nil)
    }

    /// Every regex- or glob-looking input from the issue's first paragraph.
    @Test(
        "regex and glob syntax in hosts, paths and pathPrefixes is an error naming the right field",
        arguments: [
            (
                #""paths": ["/logout.*"]"#,
                #"/handlers/0/match/paths/0: "/logout.*" in paths: paths are exact strings, not regular expressions; use pathPatterns ["/logout*"] ("*" any run of characters, "?" one character)"#
            ),
            (
                #""paths": ["/admin/*"]"#,
                #"/handlers/0/match/paths/0: "/admin/*" in paths: paths are exact; use pathPrefixes ["/admin"] or pathPatterns ["/admin/*"]"#
            ),
            (
                #""paths": ["/api/v[0-9]+"]"#,
                #"/handlers/0/match/paths/0: "/api/v[0-9]+" in paths: paths are exact strings, not regular expressions; use pathPatterns ["/api/v?*"] ("*" any run of characters, "?" one character)"#
            ),
            (
                #""paths": ["/(login|logout)"]"#,
                #"/handlers/0/match/paths/0: "/(login|logout)" in paths: paths are exact strings, not regular expressions; list each path: paths ["/login", "/logout"]"#
            ),
            (
                #""pathPrefixes": ["/admin/*"]"#,
                #"/handlers/0/match/pathPrefixes/0: "/admin/*" in pathPrefixes: pathPrefixes are whole-segment prefixes ("/admin" covers "/admin/users"); use pathPrefixes ["/admin"] or pathPatterns ["/admin/*"]"#
            ),
            (
                #""hosts": ["evil.com$"]"#,
                #"/handlers/0/match/hosts/0: "evil.com$" in hosts: hosts are exact host names (or "*.example.com" for subdomains), not regular expressions; write "evil.com" (and "*.evil.com" to cover its subdomains)"#
            ),
            (
                #""hosts": [".*\\.evil\\.com"]"#,
                #"/handlers/0/match/hosts/0: ".*\.evil\.com" in hosts: hosts are exact host names (or "*.example.com" for subdomains), not regular expressions; for every subdomain of evil.com write "*.evil.com", and add "evil.com" for the domain itself"#
            ),
            (
                #""hosts": ["*"]"#,
                #"/handlers/0/match/hosts/0: "*" in hosts: "*" alone would match every host; omit "hosts" to match any host"#
            ),
            (
                #""pathPatterns": ["/(login|logout)"]"#,
                #"/handlers/0/match/pathPatterns/0: "/(login|logout)" in pathPatterns: patterns take "*" (any run of characters) and "?" (one character), not regular expressions; write "/login", "/logout""#
            ),
            (
                #""paths": "/logout""#,
                #"/handlers/0/match/paths: expected an array of strings, got a string; write ["/logout"]"#
            ),
        ])
    func regexLookingInputs(match: String, expected: String) {
        #expect(configIssues(#"{"handlers": [{"name": "p", "type": "cancel", "match": {\#(match)}}]}"#) == [expected])
    }

    @Test("the suggested replacements are working patterns")
    func suggestionsWork() throws {
        let suggested = try policy(#""pathPatterns": ["/logout*", "/api/v?*"]"#)
        #expect(try handler(suggested, "https://a.example/logout.php") == "p")
        #expect(try handler(suggested, "https://a.example/api/v12") == "p")
        let hosts = try policy(#""hosts": ["evil.com", "*.evil.com"]"#)
        #expect(try handler(hosts, "https://www.evil.com/") == "p")
        #expect(try handler(hosts, "https://evil.com/") == "p")
        #expect(try handler(try policy(#""hosts": ["[::1]", "*.example.com"]"#), "http://[::1]/") == "p")
        #expect(try handler(try policy(#""pathPatterns": ["/c++/*"]"#), "https://a.example/c++/intro") == "p")
    }

    @Test(
        "JSON slips are named in words, with line and column",
        arguments: [
            ("{\n  \"handlers\": [],\n}", "line 3, column 1", "trailing comma"),
            ("{\n  // note\n  \"handlers\": []\n}", "line 2, column 3", "JSON has no comments"),
            ("{'handlers': []}", "line 1, column 2", "double quotes, not single quotes"),
            ("\u{FEFF}{\"handlers\": []}", "line 1", "byte order mark"),
        ])
    func jsonSlips(text: String, place: String, words: String) {
        let issues = configIssues(text)
        #expect(issues.count == 1)
        #expect(issues.first?.contains(place) == true, "\(issues)")
        #expect(issues.first?.contains(words) == true, "\(issues)")
    }
}
