import NavigationPolicy
import Testing

@Suite("Match-form paths")
struct MatchPathTests {
    @Test(
        "normalization steps",
        arguments: [
            ("https://h/%6Cogout", "/logout"),
            ("https://h/a/%7e%5F%2D%2E", "/a/~_-."),
            ("https://h/a%2fb%3a", "/a%2Fb%3A"),
            ("https://h/a;x=1/b;y", "/a/b"),
            ("https://h//a///b//", "/a/b"),
            ("https://h/a/b/..;/c", "/a/c"),
            ("https://h/a/%2e%2e/%2e/c", "/c"),
            ("https://h/a/.%2E/../c", "/c"),
            ("https://h/", "/"),
            ("https://h/../../..", "/"),
            ("https://h/%252e%252e/x", "/%252e%252e/x"),
            ("https://h/A/B/", "/A/B"),
        ])
    func normalize(url: String, expected: String) throws {
        let request = try CanonicalRequest(NavigationRequest(url: url))
        #expect(request.matchPath.text == expected)
        #expect(request.matchPath.folded == expected.lowercased())
    }

    @Test("opaque paths are decoded but not split")
    func opaque() throws {
        let request = try CanonicalRequest(NavigationRequest(url: "javascript:%61lert(1)//x/../y"))
        #expect(request.matchPath.text == "alert(1)//x/../y")
        #expect(request.matchHost == nil)
        let everything = try compile(#"{"handlers":[{"name":"p","type":"cancel","match":{"pathPrefixes":["/"]}}]}"#)
        #expect(try decide(everything, "javascript:alert(1)").handler == nil, "no path pattern covers an opaque path")
        #expect(try decide(everything, "https://a.example/").handler == "p")
    }

    /// FuzzURL crash: a `%` that starts no escape, followed by an escaped digit, turned into a
    /// new escape after one pass (`/%3%30` became `/%30`, then `/0`), so the comparison form of
    /// a comparison form differed. A stray `%` is now written as `%25`.
    @Test(
        "the match form of a match form is itself",
        arguments: [
            ("httpR://Sequence://[::%3j%78%63%30%3%302e%30%32%-35%3)0%2D.01", false),
            ("https://h/%3%30", false), ("https://h/%%30%30", false), ("https://h/a%", false), ("https://h/%2%45", false),
            ("javascript:%3%30", true), ("javascript:x%", true),
        ])
    func stableUnderSecondPass(url: String, isOpaque: Bool) throws {
        let request = try CanonicalRequest(NavigationRequest(url: url))
        let again = MatchPath(pathname: request.matchPath.text, isOpaque: isOpaque)
        #expect(again == request.matchPath, "\(url): \(request.matchPath.text) -> \(again.text)")
    }

    @Test("a stray percent sign is compared as %25, on both sides")
    func strayPercent() throws {
        #expect(try CanonicalRequest(NavigationRequest(url: "https://h/%3%30")).matchPath.text == "/%2530")
        let policy = try compile(#"{"handlers":[{"name":"p","type":"cancel","match":{"paths":["/100%"]}}]}"#)
        #expect(try decide(policy, "https://a.example/100%").handler == "p")
        #expect(try decide(policy, "https://a.example/100%25").handler == "p")
        #expect(try decide(policy, "https://a.example/100").handler == nil)
    }
}
