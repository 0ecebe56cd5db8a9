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
}
