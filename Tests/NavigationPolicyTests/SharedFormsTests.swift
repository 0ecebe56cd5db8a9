import NavigationPolicy
import Testing

/// The decision path reads the match host, the match path and `href` as slices of, or the
/// very storage of, strings it already has; these check that the shortcuts give exactly what
/// the general normalization gives, and that the sharing really happens.
@Suite("Match forms shared with href")
struct SharedFormsTests {
    /// The verbatim shortcut (a path that needs no rewriting is its own match form) must agree
    /// with the full normalization for every path, including the near misses it must refuse.
    @Test(
        "a path taken verbatim equals its full normalization",
        arguments: [
            "https://h/", "https://h/a", "https://h/a/", "https://h/a//b", "https://h/A/b", "https://h/...",
            "https://h/a/.../b", "https://h/.a/b.", "https://h/a..b/..c", "https://h/%41", "https://h/a;b",
            "foo://h", "foo://h/", "foo://h/a/./b", "foo://h/a/../b", "foo:/a", "foo:/.//a", "foo:///a",
            "javascript:x", "javascript:%61", "sc:", "file:///C:/x/", "file://host/a/b", "https://h/a?q#f",
            "https://h/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p", "https://H.example.COM./Ab/Cd?x",
        ])
    func verbatimEqualsNormalized(url: String) throws {
        let record = try URLRecord.parse(url)
        let fast = MatchPath(record)
        let slow = MatchPath(pathname: record.pathname, isOpaque: record.hasOpaquePath)
        #expect(fast == slow, "\(url): \(fast.text) vs \(slow.text)")
        #expect(fast.folded == slow.folded, "\(url)")
    }

    @Test("random paths: the shortcut and the full normalization agree")
    func randomPaths() throws {
        let pieces = ["/", "/", "a", "B", ".", "..", "%2e", "%41", ";", "x=1", "%", "~", "//"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<3000 {
            var path = "/"
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<Int(state >> 61) + 1 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                path += pieces[Int(state >> 33) % pieces.count]
            }
            for url in ["https://h" + path, "foo://h" + path] {
                let record = try URLRecord.parse(url)
                let slow = MatchPath(pathname: record.pathname, isOpaque: record.hasOpaquePath)
                #expect(MatchPath(record) == slow, "\(url)")
            }
        }
    }

    @Test(
        "match hosts",
        arguments: [
            ("https://Pay.Example.COM./", "pay.example.com"), ("https://a.b/", "a.b"), ("https://./", "."),
            ("https://0x7f.1/", "127.0.0.1"), ("https://[::ffff:7f00:1]/", "127.0.0.1"), ("https://[::1]/", "[::1]"),
            ("foo://HoSt.Example./x", "host.example."), ("foo:///x", ""),
            ("https://xn--bcher-kva.example/", "xn--bcher-kva.example"),
            ("https://BÜCHER.example./", "xn--bcher-kva.example"),
        ])
    func matchHosts(url: String, expected: String) throws {
        #expect(try CanonicalRequest(NavigationRequest(url: url)).matchHost == expected)
    }

    @Test("no host, no match host")
    func noHost() throws {
        #expect(try CanonicalRequest(NavigationRequest(url: "mailto:a@b.example")).matchHost == nil)
    }

    /// An input that already is its serialization becomes `href` without a copy: the bytes
    /// are the input's own. (Strings longer than 15 bytes live on the heap, so equal base
    /// addresses mean one storage.)
    @Test("a canonical URL's href is the input string itself")
    func canonicalInputIsShared() throws {
        var input = "https://app.example.com/home?x=1#frag"
        var href = try URLRecord.parse(input).href
        let shared = input.withUTF8 { inputBytes in href.withUTF8 { $0.baseAddress == inputBytes.baseAddress } }
        #expect(shared)
        var request = try CanonicalRequest(NavigationRequest(url: input))
        var requestHref = request.href
        #expect(input.withUTF8 { inputBytes in requestHref.withUTF8 { $0.baseAddress == inputBytes.baseAddress } })
        request = try CanonicalRequest(NavigationRequest(url: "https://app.example.com/a/./b"))
        requestHref = request.href
        #expect(requestHref == "https://app.example.com/a/b")
    }

    @Test(
        "inputs that differ from their serialization are serialized, not shared",
        arguments: [
            ("  https://app.example.com/home  ", "https://app.example.com/home"),
            ("https://app.example.com/ho\tme", "https://app.example.com/home"),
            ("HTTPS://APP.example.com/home", "https://app.example.com/home"),
            ("https://app.example.com", "https://app.example.com/"),
            ("web+demo:/.//not-a-host/", "web+demo:/.//not-a-host/"),
            ("web+demo:/..//not-a-host/x", "web+demo:/.//not-a-host/x"),
        ])
    func nonCanonicalInput(input: String, expected: String) throws {
        let record = try URLRecord.parse(input)
        #expect(record.href == expected)
        #expect(record.pathname == (try URLRecord.parse(expected)).pathname)
    }

    @Test("a location template renders in one piece, every non-unreserved byte escaped")
    func locationRender() throws {
        let policy = try compile(
            #"{"handlers":[{"name":"p","type":"payment-redirect","match":{"hosts":["pay.example.com"]},"location":"https://c.example/open?t={url}&again={url}"}]}"#
        )
        let decision = try decide(policy, "https://pay.example.com/a b?x=ü&y=~_.-")
        #expect(
            decision.location
                == "https://c.example/open?t=https%3A%2F%2Fpay.example.com%2Fa%2520b%3Fx%3D%25C3%25BC%26y%3D~_.-"
                + "&again=https%3A%2F%2Fpay.example.com%2Fa%2520b%3Fx%3D%25C3%25BC%26y%3D~_.-")
    }
}
