import Testing

@testable import NavigationPolicy

/// `hosts` entries that are CIDR ranges (`10.0.0.0/8`) or named classes (`@loopback`): every
/// spelling of an address in them matches, names do not, and explain names the entry.
@Suite("Host ranges and classes in match")
struct HostClassMatchingTests {
    /// Every spelling Chromium and libcurl connect to loopback with.
    static let loopbackSpellings = [
        "http://0.0.0.0/", "http://0/", "http://[::]/", "http://foo.localhost/", "http://127.1.2.3/",
        "http://localhost./", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "http://2130706433/",
        "http://localhost/", "http://LOCALHOST/", "http://a.b.localhost./", "http://[::1]/", "http://127.0.0.1:8080/",
        "http://[64:ff9b::7f00:1]/", "http://0177.0.0.1/", "http://[0:0:0:0:0:ffff:7f00:1]/", "https://127.255.255.254/",
        "ws://localhost/", "http://%6cocalhost/", "http://127.0.0.1./",
    ]

    static let notLoopback = [
        "https://app.example.com/", "http://localhost.example.com/", "http://notlocalhost/", "http://10.0.0.1/",
        "http://[::2]/", "http://128.0.0.1/", "http://1.2.3.4/", "http://[::127.0.0.1]/", "mailto:a@localhost",
    ]

    static func policy(_ hosts: String) throws -> CompiledPolicy {
        try compile(
            #"{"defaultDecision": "allow", "handlers": [{"name": "internal", "type": "cancel", "action": "block", "match": {"hosts": \#(hosts)}}]}"#
        )
    }

    @Test("@loopback, @internal and 127.0.0.0/8 + the unspecified ranges cancel every loopback spelling")
    func loopbackClass() throws {
        for hosts in [#"["@loopback"]"#, #"["@internal"]"#] {
            let policy = try Self.policy(hosts)
            for url in Self.loopbackSpellings {
                #expect(try decide(policy, url).verdict == .cancel, "\(hosts) \(url)")
            }
        }
        let ranges = try Self.policy(#"["127.0.0.0/8"]"#)
        for url in ["http://127.1.2.3/", "http://0x7f.1/", "http://2130706433/", "http://[::ffff:127.0.0.1]/"] {
            #expect(try decide(ranges, url).verdict == .cancel, "\(url)")
        }
        // A bare range is addresses only: it does not claim names or the unspecified address.
        for url in ["http://localhost/", "http://0.0.0.0/", "http://[::1]/"] {
            #expect(try decide(ranges, url).verdict == .allow, "\(url)")
        }
    }

    @Test("names and public addresses are not in @loopback")
    func notLoopback() throws {
        let policy = try Self.policy(#"["@loopback"]"#)
        for url in Self.notLoopback {
            #expect(try decide(policy, url).verdict == .allow, "\(url)")
        }
    }

    @Test("the contract example: @loopback, 10.0.0.0/8, fd00::/8")
    func contractExample() throws {
        let policy = try Self.policy(#"["@loopback", "10.0.0.0/8", "fd00::/8"]"#)
        for url in [
            "http://10.1.2.3/", "http://012.1.2.3/", "http://[::ffff:10.0.0.1]/", "http://[fd00::1]/", "http://[fdff:1::2]/",
            "http://0/",
        ] {
            #expect(try decide(policy, url).verdict == .cancel, "\(url)")
        }
        for url in ["http://11.0.0.1/", "http://[fc00::1]/", "http://[fe00::1]/", "http://192.168.1.1/"] {
            #expect(try decide(policy, url).verdict == .allow, "\(url)")
        }
    }

    @Test("each class: private, link-local, unspecified")
    func otherClasses() throws {
        let cases: [(String, [String], [String])] = [
            (
                "@private", ["http://192.168.0.1/", "http://172.16.5.4/", "http://100.64.0.1/", "http://[fc00::1]/"],
                ["http://127.0.0.1/", "http://localhost/"]
            ),
            ("@link-local", ["http://169.254.169.254/", "http://[fe80::1]/"], ["http://10.0.0.1/"]),
            ("@unspecified", ["http://0/", "http://[::]/", "http://0.1.2.3/"], ["http://127.0.0.1/", "http://localhost/"]),
        ]
        for (entry, cancelled, allowed) in cases {
            let policy = try Self.policy("[\"\(entry)\"]")
            for url in cancelled { #expect(try decide(policy, url).verdict == .cancel, "\(entry) \(url)") }
            for url in allowed { #expect(try decide(policy, url).verdict == .allow, "\(entry) \(url)") }
        }
    }

    @Test("an app scheme's opaque host is read as an address or localhost name too")
    func opaqueHosts() throws {
        let policy = try Self.policy(#"["@loopback"]"#)
        for url in [
            "myapp://127.0.0.1/x", "myapp://localhost/", "myapp://0x7f.1/", "myapp://[::1]/", "myapp://%6cocalhost/",
            "myapp://0/",
        ] {
            #expect(try decide(policy, url).verdict == .cancel, "\(url)")
        }
        #expect(try decide(policy, "myapp://app.example/").verdict == .allow)
    }

    @Test("explain names the entry that matched and the host it matched")
    func explain() throws {
        let policy = try Self.policy(#"["app.example", "@loopback", "10.0.0.0/8"]"#)
        let decision = try policy.decide(NavigationRequest(url: "http://0/"), explain: true)
        let step = try #require(decision.trace?.first)
        #expect(step.reason == #"matched: hosts[1] "@loopback" ~ "0.0.0.0""#)
        let ranged = try policy.decide(NavigationRequest(url: "http://10.9.8.7/"), explain: true)
        #expect(ranged.trace?.first?.reason == #"matched: hosts[2] "10.0.0.0/8" ~ "10.9.8.7""#)
        let passed = try policy.decide(NavigationRequest(url: "http://1.2.3.4/"), explain: true)
        #expect(passed.trace?.first?.reason == #"host "1.2.3.4" is not in hosts"#)
    }

    @Test("unknown classes and malformed ranges are config errors with a pointer")
    func errors() {
        let issues = configIssues(
            #"{"handlers": [{"name": "x", "type": "cancel", "match": {"hosts": ["@loopbak", "10.0.0.1/8", "10.0.0.0/33", "fd00::/129", "example.com/8", "@", "https://a.example/", "10.0.0.0/"]}}]}"#
        )
        let classes = #""@loopback", "@unspecified", "@private", "@link-local", "@internal""#
        #expect(
            issues == [
                #"/handlers/0/match/hosts/0: "@loopbak": unknown host class; the classes are \#(classes)"#,
                #"/handlers/0/match/hosts/1: "10.0.0.1/8": host bits are set past the /8 prefix; write "10.0.0.0/8" for the range"#,
                #"/handlers/0/match/hosts/2: "10.0.0.0/33": an IPv4 prefix length is at most 32"#,
                #"/handlers/0/match/hosts/3: "fd00::/129": an IPv6 prefix length is at most 128"#,
                #"/handlers/0/match/hosts/4: "example.com/8": a range needs an IP address before "/", not a name"#,
                #"/handlers/0/match/hosts/5: "@": unknown host class; the classes are \#(classes)"#,
                #"/handlers/0/match/hosts/6: "https://a.example/": a host pattern is a bare host name, not a URL"#,
                #"/handlers/0/match/hosts/7: "10.0.0.0/": a host pattern is a bare host name, not a URL"#,
            ], "\(issues)")
    }

    @Test("ranges are not regexes or paths to PatternAdvice")
    func noAdvice() {
        for entry in ["10.0.0.0/8", "fd00::/8", "[fd00::]/8", "@loopback", "@link-local", "::ffff:0:0/96"] {
            #expect(PatternAdvice.host(entry) == nil, "\(entry)")
        }
    }

    @Test("summary lists classes and ranges")
    func summary() throws {
        let policy = try Self.policy(#"["@loopback", "10.0.0.0/8", "a.example"]"#)
        #expect(policy.links.first?.matcher.summary == "hosts=10.0.0.0/8,@loopback,a.example")
    }
}
