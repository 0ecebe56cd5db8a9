import NavigationPolicy
import Testing

/// Every bypass class from shared/reference/url-matching.md §6 that applies to path, host
/// or scheme matching: each URL below must still reach the handler it tries to dodge.
@Suite("URL bypass classes")
struct BypassTests {
    let policy: CompiledPolicy

    init() throws {
        policy = try compile(defaultPolicyJSON)
    }

    @Test(
        "path tricks still hit the logout handler",
        arguments: [
            "https://app.example.com/LOGOUT",  // 1 case
            "https://app.example.com/LoGoUt",
            "https://app.example.com/%6Cogout",  // 2 escaped unreserved
            "https://app.example.com/%6c%6F%67%6f%75%74",
            "https://app.example.com/x/../logout",  // 3 dot segments
            "https://app.example.com/x/%2e%2e/logout",  // 4 encoded dots
            "https://app.example.com/x/.%2E/logout",
            "https://app.example.com/./logout",
            "https://app.example.com//logout",  // 7 repeated slashes
            "https://app.example.com//x/..//logout",
            "https://app.example.com\\logout",  // 8 backslash
            "https://app.example.com/x\\..\\logout",
            "https://app.example.com/lo\tgout",  // 9 tab/newline
            "https://app.example.com/lo\ngo\rut",
            "https://app.example.com/logout;a=b",  // 10 matrix params
            "https://app.example.com/;x/logout",
            "https://app.example.com/public/..;/logout",  // 11 ..;
            "https://app.example.com/logout/",  // 14 trailing slash
            "https://app.example.com/logout?x=1",  // 16 query and fragment
            "https://app.example.com/logout#frag",
            "  https://app.example.com/logout\u{0000}",  // 35 controls around the URL
            "HTTPS://APP.EXAMPLE.COM/LOGOUT",
            "https://app.example.com/sign_out",
            "https://app.example.com/SIGN%5fOUT",
        ])
    func pathTricks(url: String) throws {
        let decision = try decide(policy, url)
        #expect(decision.verdict == .cancel, "\(url) → \(decision.url)")
        #expect(decision.handler == "logout", "\(url) → \(decision.url)")
    }

    @Test(
        "look-alikes that are different paths are not logout",
        arguments: [
            "https://app.example.com/logouts",  // 17 suffixes are other resources
            "https://app.example.com/logout.json",
            "https://app.example.com/logout%2Fx",  // 6 encoded slash stays one segment
            "https://app.example.com/%252e%252e/logout",  // 5 double encoding is not decoded twice
            "https://app.example.com/logout%20",  // 15 whitespace is another name
            "https://app.example.com/admin/%3blogout",  // 12 encoded ; is data, not a parameter
            "https://app.example.com/public?/../logout",  // 16 the query is not the path
            "https://app.example.com/public#/../logout",  // nor is the fragment
            "https://app.example.com/%EF%BC%8Flogout",  // 18 fullwidth solidus stays encoded
            "https://app.example.com/%c0%ae%c0%ae/logout",  // 19 overlong UTF-8 is not a dot
        ])
    func notLogout(url: String) throws {
        let decision = try decide(policy, url)
        #expect(decision.handler != "logout", "\(url) → \(decision.url)")
    }

    @Test(
        "host tricks still hit the payment handler",
        arguments: [
            "https://PAY.EXAMPLE.COM/x",  // 21 case
            "https://pay.example.com./x",  // 22 trailing dot
            "https://%70ay.example.com/x",  // 23 percent-encoded host
            "https://ｐａｙ.example.com/x",  // 24 fullwidth
            "https://pay。example。com/x",  // ideographic full stop
            "https://pay.exa\u{00AD}mple.com/x",  // soft hyphen is ignored
            "https://evil.io@pay.example.com/",  // 26 userinfo: the host is after the last @
            "https://a@b@pay.example.com/",
            "https:\\\\pay.example.com\\x",  // 28 backslashes as slashes
            "https:/pay.example.com/x",  // 29 slash count
            "https:///pay.example.com/x",
            "https:pay.example.com/x",
            "https://pay.example.com:443/x",  // 34 default port
            "https://pay.example.com:0443/x",
            "https://p\tay.example.com/x",  // 35 controls
        ])
    func hostTricks(url: String) throws {
        let decision = try decide(policy, url)
        #expect(decision.handler == "payment", "\(url) → \(decision.url)")
        #expect(decision.action == "open-external")
    }

    @Test(
        "hosts that only look like the payment host are not it",
        arguments: [
            "https://pay.example.com@evil.io/",  // 26 userinfo
            "https://pay.example.com.evil.io/",  // 31 string prefix
            "https://pay.example.commit.evil.io/",
            "https://evilpay.example.com/",
            "https://evil.io\\@pay.example.com/",  // 27 backslash-at
            "https://evil.io#@pay.example.com/",  // 32 fragment split
            "https://evil.io?@pay.example.com/",
        ])
    func notPayment(url: String) throws {
        let decision = try decide(policy, url)
        #expect(decision.handler != "payment", "\(url) → \(decision.url)")
    }

    @Test(
        "legacy IPv4 forms match a canonical IP host pattern",
        arguments: [
            "http://127.0.0.1/", "http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/",
            "http://0x7f000001/", "http://%31%32%37.0.0.1/", "http://127.0.0.1./",
        ])
    func ipv4Forms(url: String) throws {
        let ipPolicy = try compile(#"{"handlers":[{"name":"local","type":"cancel","match":{"hosts":["0x7F.1"]}}]}"#)
        #expect(try decide(ipPolicy, url).handler == "local", "\(url)")
    }

    @Test("IPv6 literals compare in canonical form")
    func ipv6Forms() throws {
        let ipPolicy = try compile(#"{"handlers":[{"name":"local","type":"cancel","match":{"hosts":["0:0::1"]}}]}"#)
        for url in ["http://[::1]/", "http://[0:0:0:0:0:0:0:1]/", "http://[::0:1]:80/"] {
            #expect(try decide(ipPolicy, url).handler == "local", "\(url)")
        }
        #expect(try decide(ipPolicy, "http://[::2]/").handler == nil)
    }

    @Test(
        "scheme tricks are folded before matching",
        arguments: ["JAVASCRIPT:alert(1)", "java\tscript:alert(1)", " javascript:alert(1)", "\u{0001}javascript:alert(1)"])
    func schemeTricks(url: String) throws {
        let schemePolicy = try compile(#"{"handlers":[{"name":"no-js","type":"cancel","match":{"schemes":["javascript"]}}]}"#)
        let decision = try decide(schemePolicy, url)
        #expect(decision.handler == "no-js", "\(url)")
        #expect(decision.action == "block")
    }
}
