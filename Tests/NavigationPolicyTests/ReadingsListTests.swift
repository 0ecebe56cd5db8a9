import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The engine combines a request's readings in `CompiledPolicy.allReadings` without building a
/// list; the analysis asks `CanonicalRequest.otherReadings(forURLPatterns:)`. A one-handler
/// cancel chain must cancel exactly the requests on which its match holds on some reading, so
/// a reading added to one place and not the other fails here.
@Suite("the readings list and the engine's readings agree")
struct ReadingsListTests {
    static let matches: [String] = [
        #"{"urlPatterns": ["https://app.test/admin/*"]}"#,
        #"{"urlPatterns": [{"hostname": "app.test", "pathname": "/secret/*"}]}"#,
        #"{"pathPatterns": ["/pp/*"]}"#,
        #"{"pathPrefixes": ["/admin"]}"#,
    ]

    static let paths = [
        "/admin/", "/admin", "/admin/x", "/%61dmin/", "/admin;x/", "//admin/;", "/admin;/;", "/x/..;/admin/",
        "/admin%2F", "/admin%5C", "/%2Fadmin/", "/%61dmin%2F/", "/x/..%2F%2Fadmin/", "/a%2Fdmin/", "/secret%2F",
        "/%73ecret%2F/", "/pp%2F", "/%2Fpp/", "/public/x%2F../../admin/", "/other/", "/", "/admin.", "/admin%20",
    ]

    @Test("cancel on a one-handler chain ⇔ the match holds on some reading", arguments: Self.matches)
    func agree(_ match: String) throws {
        let text = #"{"defaultDecision": "allow", "handlers": [{"name": "h", "type": "cancel", "match": \#(match)}]}"#
        let policy = try PolicyCompiler().compile(Array(text.utf8))
        let matcher = try #require(policy.links.first?.matcher)
        for path in Self.paths {
            let request = try CanonicalRequest(NavigationRequest(url: "https://app.test" + path))
            let cancelled = policy.decide(request).verdict == .cancel
            #expect(cancelled == matcher.holdsOnSomeReading(request), "\(match) \(path)")
        }
    }
}
