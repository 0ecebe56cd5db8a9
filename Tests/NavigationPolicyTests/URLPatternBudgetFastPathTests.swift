import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// Issue 31: components that are fixed text, optionally with one `*` (issue 41: anywhere in it,
/// as in `*.example.com` or `/static/*.js`), are matched without the regex engine; the result
/// (match, groups) must be exactly the Pike VM's.
@Suite("URLPattern budget: fast paths agree with the engine")
struct URLPatternBudgetFastPathTests {
    static let patterns = [
        "*", "/admin/*", "/admin", "", "token=*", "/a/b/c", "/%61dmin/*", "/ä/*", "x*", "/*", "a\\*b", "{/admin}*",
        "*.example.com", "/static/*.js", "/*/x", "*k", "/ä/*ä", "a*a", "/admin/*.html",
    ]
    static let inputs = [
        "", "/", "/admin", "/admin/", "/admin/x", "/ADMIN/x", "/Admin/x/y", "token=", "token=abc", "TOKEN=1", "/a/b/c",
        "/a/b/c/", "/%61dmin/x", "/%C3%A4/x", "x", "xyz", "a*b", "/admin/\n", "/admin/a\u{2028}b", "/admin/\u{212A}",
        "/adminx", "k", "K", "\u{212A}", "a.example.com", ".example.com", "example.com", "a.b.EXAMPLE.com", "/static/x.js",
        "/static/.js", "/static.js", "/static/a\nb.js", "/x/x", "/xx", "/x", "a", "aa", "aba", "/ä/ä", "/ä/xÄ", "/admin/x.html",
        "x\u{212A}",
    ]

    func component(_ pattern: String, ignoreCase: Bool, pathname: Bool) throws -> URLPatternComponent {
        var options = pathname ? PatternOptions.pathname : PatternOptions.default
        options.ignoreCase = ignoreCase
        return try URLPatternComponent.compile(
            pattern, component: pathname ? "pathname" : "search", options: options,
            encode: { (text: String) throws(URLPatternError) in text })
    }

    @Test("fixed text with at most one * takes the fast path; groups, modifiers, names and two * do not")
    func eligibility() throws {
        for pattern in ["*", "/admin/*", "/admin", "", "token=*", "/*", "/*/x", "/admin/*.html", "*.example.com"] {
            #expect(try component(pattern, ignoreCase: false, pathname: true).fastPath != nil, "\(pattern)")
        }
        for pattern in ["/:id", "/(\\d+)", "/admin/*?", "/a{/b}?", "/*/*", "*.*"] {
            #expect(try component(pattern, ignoreCase: false, pathname: true).fastPath == nil, "\(pattern)")
        }
    }

    @Test("every input gives the engine's result, with and without ignoreCase, in both dialects")
    func agreement() throws {
        var compared = 0
        for pattern in Self.patterns {
            for ignoreCase in [false, true] {
                for pathname in [false, true] {
                    let compiled = try component(pattern, ignoreCase: ignoreCase, pathname: pathname)
                    guard compiled.fastPath != nil else { continue }
                    for input in Self.inputs + ["k", "\u{212A}"].map({ pattern + $0 }) {
                        let fast = compiled.exec(input)
                        let engine = compiled.engineExec(input)
                        #expect(fast == engine, "\(pattern) ignoreCase=\(ignoreCase) on \(input.debugDescription)")
                        // The answer alone takes the byte route for ASCII text: it must agree too.
                        #expect(compiled.matches(input) == (engine != nil), "\(pattern) on \(input.debugDescription)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 500)
    }
}
