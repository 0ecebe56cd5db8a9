import Foundation
import Testing

/// Item 1, 14 and 10 of security round 3, from outside: host classes and ranges that no
/// loopback spelling walks around, `GET` rules that cover HEAD, and location templates that
/// are refused when raw and emitted serialized. Each test failed on the code before its fix.
@Suite("host classes, HEAD with GET, location templates (live)", .serialized)
struct HostClassLiveTests {
    /// Every spelling Chromium 156 and libcurl connect to loopback with, that the old
    /// documented literal policy (`127.0.0.1`, `[::1]`, `localhost`) let through or caught only
    /// by luck of canonicalization.
    static let bypasses = [
        "http://0.0.0.0/", "http://0/", "http://[::]/", "http://foo.localhost/", "http://127.1.2.3/",
        "http://localhost./", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "http://2130706433/",
    ]
    /// The spellings of addresses in 127.0.0.0/8 among them.
    static let in127 = ["http://127.1.2.3/", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "http://2130706433/"]

    static func policy(_ hosts: String) -> String {
        #"{"defaultDecision": "allow", "handlers": [{"name": "internal", "type": "cancel", "action": "block", "match": {"hosts": \#(hosts)}}]}"#
    }

    static func decide(_ daemon: DaemonProcess, _ url: String, _ extra: [String] = []) throws -> Curl.Response {
        try Curl.request(daemon.baseURL + "/v1/decide", ["-G", "--data-urlencode", "url=\(url)"] + extra)
    }

    @Test("@loopback, @internal and 127.0.0.0/8 cancel the loopback spellings on /v1/decide and check")
    func loopbackSpellingsAreCancelled() throws {
        let cases: [(hosts: String, urls: [String])] = [
            (#"["@loopback"]"#, Self.bypasses), (#"["@internal"]"#, Self.bypasses), (#"["127.0.0.0/8"]"#, Self.in127),
        ]
        for (hosts, urls) in cases {
            let config = Self.policy(hosts)
            let daemon = try DaemonProcess(config: config)
            let path = try BinaryRunner.temporaryFile(config)
            for url in urls {
                let decided = try Self.decide(daemon, url)
                #expect(decided.status == 200, "\(hosts) \(url): \(decided.body)")
                #expect(decided.json?["decision"] as? String == "cancel", "\(hosts) \(url): \(decided.body)")
                #expect(decided.json?["handler"] as? String == "internal", "\(hosts) \(url)")
                let checked = try BinaryRunner.run(["check", "--config", path, url])
                #expect(checked.status == 0, "\(checked.stderr)")
                #expect(
                    checked.stdout.contains(#""decision":"cancel","handler":"internal""#), "\(hosts) \(url): \(checked.stdout)")
            }
            #expect(try Self.decide(daemon, "https://app.example.com/").json?["decision"] as? String == "allow")
        }
    }

    @Test("the old documented literal policy let the spellings through (why the recipe is a class)")
    func literalPolicyIsDodged() throws {
        let path = try BinaryRunner.temporaryFile(Self.policy(#"["127.0.0.1", "[::1]", "localhost"]"#))
        for url in ["http://0.0.0.0/", "http://0/", "http://[::]/", "http://foo.localhost/", "http://127.1.2.3/"] {
            let checked = try BinaryRunner.run(["check", "--config", path, url])
            #expect(checked.stdout.contains(#""decision":"allow""#), "\(url): \(checked.stdout)")
        }
    }

    @Test("the contract example validates and decides: @loopback, 10.0.0.0/8, fd00::/8; explain names the entry")
    func contractExample() throws {
        let config = Self.policy(#"["@loopback", "10.0.0.0/8", "fd00::/8"]"#)
        let validated = try BinaryRunner.run(["validate", "--config", BinaryRunner.temporaryFile(config)])
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
        #expect(validated.stdout.contains("hosts=10.0.0.0/8,@loopback,fd00::/8"), "\(validated.stdout)")
        let daemon = try DaemonProcess(config: config)
        for url in Self.bypasses + ["http://10.1.2.3/", "http://012.0.0.1/", "http://[fd00::1]/", "http://[fdab:1::2]/"] {
            #expect(try Self.decide(daemon, url).json?["decision"] as? String == "cancel", "\(url)")
        }
        for url in ["http://11.0.0.1/", "http://[fc00::1]/", "http://192.168.1.1/", "http://localhost.example.com/"] {
            #expect(try Self.decide(daemon, url).json?["decision"] as? String == "allow", "\(url)")
        }
        let explained = try Self.decide(daemon, "http://0/", ["--data-urlencode", "explain=true"])
        #expect(explained.body.contains(#"matched: hosts[0] \"@loopback\" ~ \"0.0.0.0\""#), "\(explained.body)")
        let ranged = try Self.decide(daemon, "http://[fd00::7]/", ["--data-urlencode", "explain=true"])
        #expect(ranged.body.contains(#"matched: hosts[2] \"fd00::/8\" ~ \"[fd00::7]\""#), "\(ranged.body)")
    }

    @Test("unknown classes and malformed ranges: validate exits 1 and check exits 2, each with a pointer")
    func badEntries() throws {
        let path = try BinaryRunner.temporaryFile(Self.policy(#"["@loopbak", "10.0.0.1/8", "fd00::/200"]"#))
        let validated = try BinaryRunner.run(["validate", "--config", path])
        #expect(validated.status == 1)
        #expect(
            validated.stderr.contains(
                #"/handlers/0/match/hosts/0: "@loopbak": unknown host class; the classes are "@loopback", "@unspecified", "@private", "@link-local", "@internal""#
            ), "\(validated.stderr)")
        #expect(validated.stderr.contains(#"/handlers/0/match/hosts/1: "10.0.0.1/8": host bits are set past the /8 prefix"#))
        #expect(
            validated.stderr.contains(#"/handlers/0/match/hosts/2: "fd00::/200": an IPv6 prefix length is at most 128"#),
            "\(validated.stderr)")
        let checked = try BinaryRunner.run(["check", "--config", path, "http://0/"])
        #expect(checked.status == 2)
        #expect(checked.stderr.contains("/handlers/0/match/hosts/0"))
    }

    @Test("methods [GET] covers HEAD: /v1/decide with method=HEAD, and curl -I through the forward proxy")
    func headIsCoveredByGet() throws {
        let config =
            #"{"defaultDecision": "allow", "handlers": [{"name": "get-admin", "type": "cancel", "action": "block", "match": {"methods": ["GET"], "pathPrefixes": ["/admin"]}}]}"#
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let decided = try Self.decide(
            daemon, "https://app.example.com/admin", ["--data-urlencode", "method=HEAD", "--data-urlencode", "explain=true"])
        #expect(decided.json?["handler"] as? String == "get-admin", "\(decided.body)")
        #expect(decided.body.contains(#"methods[0] \"GET\" ~ \"HEAD\""#), "\(decided.body)")
        #expect(
            try Self.decide(daemon, "https://app.example.com/admin", ["--data-urlencode", "method=POST"]).json?["handler"]
                is NSNull)
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        // The decision is made before any connection to the origin: nothing listens on it.
        let head = try Curl.request("http://app.example.com/admin/users", proxy + ["-I"])
        #expect(head.status == 403, "\(head.status)")
        #expect(head.headers["x-navigation-handler"] == "get-admin")
    }

    /// Templates the old `validate` passed, each with the reason it is now refused.
    static let badTemplates: [(template: String, reason: String)] = [
        (#"https://a.example/\r\nSet-Cookie: x=1?u={url}"#, "a control character (U+000D)"),
        (#"https://a.example/\t?u={url}"#, "a control character (U+0009)"),
        (#" https://a.example/?u={url}"#, "a leading or trailing space"),
        (#"https://a.example/?u={url} "#, "a leading or trailing space"),
        (#"https://a.example/\"><script>?u={url}"#, #"a raw '"'; write %22"#),
        (#"https://a.example/<b>?u={url}"#, #"a raw '<'; write %3C"#),
        (#"javascript:alert(1)//{url}"#, "not javascript:"),
        (#"data:text/html,{url}"#, "not data:"),
        (#"vbscript:msgbox({url})"#, "not vbscript:"),
        (#"file:///tmp/{url}"#, "not file:"),
    ]

    @Test("bad location templates: validate exits 1 and check exits 2 with the location's pointer")
    func badTemplatesAreRefused() throws {
        for (template, reason) in Self.badTemplates {
            let config =
                #"{"handlers": [{"name": "x", "type": "cancel", "match": {"paths": ["/x"]}, "location": "\#(template)"}]}"#
            let path = try BinaryRunner.temporaryFile(config)
            let validated = try BinaryRunner.run(["validate", "--config", path])
            #expect(validated.status == 1, "\(template): \(validated.stdout)")
            #expect(validated.stderr.contains("/handlers/0/location: "), "\(template): \(validated.stderr)")
            #expect(validated.stderr.contains(reason), "\(template): \(validated.stderr)")
            // The refused text is quoted as JSON: the error stays on its line.
            #expect(!validated.stderr.contains("\r"), "\(template)")
            let checked = try BinaryRunner.run(["check", "--config", path, "https://a.example/x"])
            #expect(checked.status == 2, "\(template)")
        }
    }

    @Test("a good template is emitted serialized: decision location, X-Navigation-Location and the proxy's Location")
    func templatesAreSerialized() throws {
        let template = "HTTPS://Help.EXAMPLE.com:443/a/./b/../c/ü?x={url}"
        let config =
            #"{"defaultDecision": "allow", "handlers": [{"name": "help", "type": "payment-redirect", "match": {"pathPrefixes": ["/help"]}, "location": "\#(template)"}]}"#
        let expected = "https://help.example.com/a/c/%C3%BC?x=http%3A%2F%2Fapp.example.com%2Fhelp"
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let decided = try Self.decide(daemon, "http://app.example.com/help")
        #expect(decided.json?["location"] as? String == expected, "\(decided.body)")
        let authz = try Curl.request(daemon.baseURL + "/v1/authz", ["-H", "X-Original-URL: http://app.example.com/help"])
        #expect(authz.headers["x-navigation-location"] == expected, "\(authz.headers)")
        let proxied = try Curl.request("http://app.example.com/help", ["-x", "127.0.0.1:\(daemon.proxyPort())"])
        #expect(proxied.status == 302, "\(proxied.status) \(proxied.body)")
        #expect(proxied.headers["location"] == expected, "\(proxied.headers)")
    }
}
