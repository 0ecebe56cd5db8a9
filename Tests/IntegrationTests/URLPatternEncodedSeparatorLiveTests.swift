import Foundation
import Testing

/// Outside finding: `urlPatterns` were easier to dodge than `pathPatterns` through an encoded
/// separator. `/admin%2F` is `/admin/` to a server that decodes `%2F`, but the decoded-separator
/// reading gave `urlPatterns` its match form `/admin` (trailing `/` dropped), which
/// `https://app.test/admin/*` does not match, and the standard reading kept `%2F`: the policy
/// allowed it while `pathPatterns ["/pp/*"]` cancelled `/pp%2F`. The decoded readings now also
/// give `urlPatterns` their path as the standard spells it, the trailing `/` kept.
@Suite("URLPattern encoded separators, live", .serialized)
struct URLPatternEncodedSeparatorLiveTests {
    static let config = """
        {"defaultDecision": "allow", "extAuthz": {"pathPrefix": "/authz"}, "handlers": [
          {"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://app.test/admin/*"]}},
          {"name": "secret", "type": "cancel", "match": {"urlPatterns": [{"hostname": "app.test", "pathname": "/secret/*"}]}},
          {"name": "pp", "type": "cancel", "match": {"pathPatterns": ["/pp/*"]}}
        ]}
        """

    /// The attacker's paths and their handler.
    static let attacks = [
        ("/admin%2F", "admin"), ("/admin%5C", "admin"), ("/admin%2f", "admin"), ("/admin%2F%2F", "admin"),
        ("/x/..%2Fadmin/", "admin"), ("/secret%2F", "secret"), ("/secret%5c", "secret"), ("/pp%2F", "pp"),
        // Without an encoded separator: the match form drops the slash, the standard form keeps
        // the escape or parameter (found while fixing the above).
        ("/%61dmin/", "admin"), ("/admin;x/", "admin"), ("/x/..;/admin/", "admin"), ("/s%65cret/", "secret"),
        // The re-attack: a trailing slash the match form drops behind a decoded separator or a
        // last `;` segment.
        ("/%2Fadmin/", "admin"), ("/%61dmin%2F/", "admin"), ("/%2Fadmin;/", "admin"), ("/%5Cadmin/", "admin"),
        ("/%2F%2Fadmin/", "admin"), ("/x/..%2F%2Fadmin/", "admin"), ("//admin/;", "admin"), ("/admin;/;", "admin"),
        ("/%2Fadmin/?", "admin"), ("/%2Fsecret/", "secret"), ("/%73ecret%2F/", "secret"),
    ]

    @Test("navpolicyd check: every spelling of the directory is cancelled; /a%2Fdmin/ is not the directory")
    func check() throws {
        let path = try BinaryRunner.temporaryFile(Self.config)
        for (attack, handler) in Self.attacks {
            let result = try BinaryRunner.run(["check", "--config", path, "--", "https://app.test" + attack])
            #expect(result.stdout.contains(#""decision":"cancel","handler":"\#(handler)""#), "\(attack): \(result.stdout)")
        }
        let other = try BinaryRunner.run(["check", "--config", path, "--", "https://app.test/a%2Fdmin/"])
        #expect(other.stdout.contains(#""decision":"allow""#), "\(other.stdout) \(other.stderr)")
    }

    @Test("GET /v1/decide and the ext_authz HTTP service cancel them, and explain says which reading did")
    func overDecideAndExtAuthz() throws {
        let service = try ExtAuthzHTTPLiveTests.Service(config: Self.config)
        for (attack, handler) in Self.attacks {
            let response = try service.daemon.decide("https://app.test" + attack)
            #expect(response.json?["decision"] as? String == "cancel", "\(attack): \(response.body)")
            #expect(response.json?["handler"] as? String == handler, "\(attack): \(response.body)")
            let checked = try service.check(path: "/authz" + attack, host: "app.test")
            #expect(checked.status == 403, "\(attack): \(checked.status) \(checked.body)")
            #expect(checked.headers["x-navigation-handler"] == handler, "\(attack)")
        }
        let explained = try service.daemon.decide("https://app.test/admin%2F", explain: true)
        let reading = try #require(explained.json?["pathReading"] as? String, "\(explained.body)")
        #expect(reading.contains(#""app.test/admin/""#), "\(reading)")
        #expect(try service.daemon.decide("https://app.test/a%2Fdmin/").json?["decision"] as? String == "allow")
    }
}
