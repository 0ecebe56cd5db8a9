import Testing

@testable import NavigationPolicy
@testable import URLStandard

/// The canonical-URL fast path may only accept inputs for which the WHATWG state machine gives
/// the very same record; these compare the two on listed near misses and on random inputs.
@Suite("URL parser: canonical fast path")
struct URLParserFastPathTests {
    /// The state machine's record for `input` (never the fast path), or nil on failure.
    static func stateMachine(_ input: String) -> URLRecord? {
        var copy = input
        return copy.withUTF8 { buf -> URLRecord? in
            do throws(URLParseError) {
                return try URLParser.run(buf, base: nil)
            } catch {
                return nil
            }
        }
    }

    static func fastPath(_ input: String) -> URLRecord? {
        var copy = input
        return copy.withUTF8 { URLParser.parseCanonicalHTTP($0, original: input) }
    }

    /// Checks one input: when the fast path answers, the state machine agrees field by field.
    /// Returns whether the fast path answered.
    @discardableResult
    static func check(_ input: String) -> Bool {
        guard let fast = fastPath(input) else { return false }
        let slow = stateMachine(input)
        #expect(slow == fast, "\(input): fast \(fast.href) vs \(slow?.href ?? "failure")")
        return true
    }

    @Test(
        "canonical URLs take the fast path and agree with the state machine",
        arguments: [
            "https://example.com/", "http://a/", "https://app.example.com/sign_in?next=%2Fhome#top",
            "https://a-b.c0.example/x/y/z", "http://example.com:8080/", "https://h:1/", "https://h:65535/p",
            "https://h/a//b/", "https://h/.a/b./...", "https://h/?", "https://h/#", "https://h/?a=b&c=%zz#f?#",
            "https://h/~user/a;b=c,d", "https://xn--nxasmq6b.example/", "https://h/p?q=%27",
            // Escapes the parser keeps as they are (issue 41: `/%6Cogout` was the gate's one URL
            // that only the state machine took): hex in either case, anything but `.`, `/`, `\`.
            "https://h/%41", "https://app.example.com/%6Cogout", "https://h/%6c%6C/%7E%7e", "https://h/a%20b%25",
            "https://h/%2D%5F%30", "https://h/.%41", "https://h/%00%FF%c3%a9", "https://h/a%3Fb%23c",
        ])
    func accepted(url: String) {
        #expect(Self.check(url), "\(url) should take the fast path")
    }

    @Test(
        "near misses are left to the state machine",
        arguments: [
            "https://example.com", "HTTPS://h/", "https://H/", "https://h.:1/", "https://h./", "https://.h/",
            "https://a..b/", "https://h:443/", "http://h:80/", "https://h:0443/", "https://h:0/", "https://h:65536/",
            "https://h:123456/", "https://h:/", "https://u@h/", "https://u:p@h/", "https://[::1]/", "https://1.2.3.4/",
            "https://h.0x10/", "https://h.1/", "https://h/./", "https://h/../", "https://h/a/.", "https://h/a/..",
            "https://h/a/./b", "https://h/%2e/", "https://h/%2E", "https://h/a/.%2e", "https://h/a%2eb", "https://h/%2F",
            "https://h/a%2fb", "https://h/%5C", "https://h/a%5cb", "https://h/%", "https://h/%4", "https://h/a%4/",
            "https://h/%4G", "https://h/%zz", "https://h/%%41", "https://h/%2e%41", "https://h/a b", "https://h/a\\b",
            "https://h\\a",
            "https://h/a\"b", "https://h/a<b", "https://h/a{b", "https://h/a`b", "https://h/?a'b'", "https://h/?a b",
            "https://h/#a b", "https://h/#a`b", "https://h/é", " https://h/", "https://h/ ", "https://h/\t",
            "ws://h/", "ftp://h/", "file:///a", "http:/h/", "http:h/", "https:///h/", "httpx://h/", "http",
            "https://h_h/", "https://h%41/", "https://exa\u{0}mple/",
        ])
    func refused(url: String) {
        #expect(!Self.check(url), "\(url) should not take the fast path")
    }

    @Test("random inputs: whenever the fast path answers, the state machine agrees")
    func randomInputs() {
        let tricky = [
            "/", ".", "..", "Z", ":", "?", "#", "%", "%2e", "%2E", "%2F", "%5c", "%4", "%6C", "%20", "@", "\\", " ", "'", "\"",
            "`", "<", ">", "{", "}", "[",
            "]", "é", "\t", "65535", "65536", "443", "80", "0",
        ]
        // Mostly harmless pieces, so that many inputs are accepted and compared.
        let plain = ["/", "/", "a", "0", "9", "-", ".", "..", "?", "#", "=", "&", "~", ";", "%41", ":", "!", "$"]
        let prefixes = ["https://", "http://", "https://h", "http://a.b", "https://x.y:8"]
        var state: UInt64 = 0x243F_6A88_85A3_08D3
        var accepted = 0
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var url = prefixes[Int(state >> 33) % prefixes.count]
            for _ in 0..<Int(state >> 60) + 1 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let pieces = (state >> 32) & 3 == 0 ? tricky : plain
                url += pieces[Int(state >> 40) % pieces.count]
            }
            if Self.check(url) { accepted += 1 }
        }
        // The corpus must exercise the fast path, not only its refusals.
        #expect(accepted > 500)
    }
}
