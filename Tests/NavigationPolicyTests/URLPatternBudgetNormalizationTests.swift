import Testing

@testable import NavigationPolicy

/// Issue 31, attacks F2 and F3: a pattern's own fixed text is read as the match form reads the
/// URL (unreserved escapes decoded in pathname and search), so escaping one side never dodges
/// a pattern, and the standard's reading (as written, both sides) still applies: the reading
/// that cancels wins.
@Suite("URLPattern budget: escapes in patterns and queries")
struct URLPatternBudgetNormalizationTests {
    func chain(_ type: String, _ pattern: String, padding: Int = 0) throws -> CompiledPolicy {
        // `padding` handlers in front put the chain index to work.
        let pad = (0..<padding).map {
            #"{"name": "pad\#($0)", "type": "cancel", "match": {"urlPatterns": [{"hostname": "pad\#($0).example"}]}},"#
        }.joined()
        return try compile(
            #"{"defaultDecision": "\#(type == "allow" ? "cancel" : "allow")", "handlers": [\#(pad){"name": "p", "type": "\#(type)", "match": {"urlPatterns": [\#(pattern)]}}]}"#
        )
    }

    @Test("F3: /%61dmin/* cancels /admin/x and /%61dmin/x, as pathPatterns [\"/%61dmin/*\"] does", arguments: [0, 8])
    func escapedPathPattern(padding: Int) throws {
        let escaped = try chain("cancel", #"{"pathname": "/%61dmin/*"}"#, padding: padding)
        let plain = try chain("cancel", #"{"pathname": "/admin/*"}"#, padding: padding)
        let shorthand = try compile(
            #"{"defaultDecision": "allow", "handlers": [{"name": "p", "type": "cancel", "match": {"pathPatterns": ["/%61dmin/*"]}}]}"#
        )
        for url in [
            "https://a.example/admin/x", "https://a.example/%61dmin/x", "https://a.example/ADMIN/x",
            "https://a.example/%41DMIN/x",
        ] {
            #expect(try decide(shorthand, url).handler == "p", "pathPatterns on \(url)")
            #expect(try decide(escaped, url).handler == "p", "\(url)")
            #expect(try decide(plain, url).handler == "p", "\(url)")
        }
        #expect(try decide(escaped, "https://a.example/public/x").handler == nil)
    }

    @Test("an allow-list written with an escape allows the plain spelling; the standard reading still fails closed")
    func escapedAllowList() throws {
        let allow = try chain("allow", #"{"pathname": "/%61pi/*"}"#)
        #expect(try decide(allow, "https://a.example/api/x").verdict == .allow)
        // `/%61pi/x` is /api/x in match form but not, as written, to the standard's reading of
        // the normalized pattern: allowed in both readings only if both match.
        #expect(try decide(allow, "https://a.example/%61pi/x").verdict == .allow)
        #expect(try decide(allow, "https://a.example/other/x").verdict == .cancel)
    }

    @Test("the standard's own URLPattern (the CLI, WPT) is unchanged: escapes are not decoded there")
    func standardUnchanged() throws {
        let pattern = try URLPattern(.dictionary(URLPatternInit(pathname: "/%61dmin/*")))
        #expect(try !pattern.test(.string("https://a.example/admin/x")))
        #expect(try pattern.test(.string("https://a.example/%61dmin/x")))
        let search = try URLPattern(.dictionary(URLPatternInit(search: "token=*")))
        #expect(try !search.test(.string("https://a.example/?%74oken=1")))
    }

    @Test("F2: in a policy search is matched with unreserved escapes decoded: ?%74oken=1 is ?token=1")
    func escapedQuery() throws {
        let payment = try chain("cancel", #"{"pathname": "/pay/return", "search": "token=*"}"#)
        for url in [
            "https://a.example/pay/return?token=1", "https://a.example/pay/return?%74oken=1",
            "https://a.example/pay/return?%74%6F%6B%65%6E=1",
        ] {
            #expect(try decide(payment, url).handler == "p", "\(url)")
        }
        // A reserved escape stays: `token%3D1` is a parameter called "token=1", not token.
        #expect(try decide(payment, "https://a.example/pay/return?token%3D1").handler == nil)
        // The pattern's own escapes too.
        let escapedPattern = try chain("cancel", #"{"search": "%74oken=*"}"#)
        #expect(try decide(escapedPattern, "https://a.example/?token=1").handler == "p")
        // An allow-list is not widened by the decoding: the standard reading must match too.
        let allow = try chain("allow", #"{"search": "token=*"}"#)
        #expect(try decide(allow, "https://a.example/?token=1").verdict == .allow)
        #expect(try decide(allow, "https://a.example/?%74oken=1").verdict == .cancel)
    }
}
