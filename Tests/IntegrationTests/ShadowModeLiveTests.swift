import Foundation
import TestScratchSupport
import Testing

/// A shadow handler on a running daemon: never decides in any front end, and what it would
/// have decided reaches the decide response and the decision log of every front end.
@Suite("shadow mode, live", .serialized)
struct ShadowModeLiveTests {
    @Test("/v1/decide, /v1/authz and the forward proxy apply the enforcing chain and record the shadow result")
    func shadowEverywhere() throws {
        let origin = try TestOrigin()
        let logPath = TestScratch.url.appendingPathComponent("shadow-\(UUID().uuidString).ndjson").path
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "new-block", "type": "cancel", "mode": "shadow", "match": {"pathPatterns": ["/admin/*"]}},
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}
            ], "proxy": {"timeoutMilliseconds": 1500, "allowInternalDestinations": true}}
            """
        let daemon = try DaemonProcess(
            config: config, arguments: ["--decision-log", logPath, "--proxy-listen", "127.0.0.1:0"])
        let decided = try Curl.request(daemon.baseURL + "/v1/decide?url=https://a.example/admin/users")
        #expect(decided.status == 200)
        #expect(
            decided.body.contains(
                #""decision":"allow","handler":null,"action":null,"location":null,"url":"https://a.example/admin/users","shadow":[{"handler":"new-block","decision":"cancel","action":"block","location":null}]"#
            ))
        let plain = try Curl.request(daemon.baseURL + "/v1/decide?url=https://a.example/home")
        #expect(!plain.body.contains("shadow"), "no shadow member when no shadow handler would decide")

        let authz = try Curl.request(
            daemon.baseURL + "/v1/authz", ["-H", "X-Original-URL: https://a.example/admin/settings"])
        #expect(authz.status == 204, "a shadow cancel never blocks")

        let proxied = try Curl.request(origin.baseURL + "/admin/page", ["-x", "127.0.0.1:\(try daemon.proxyPort())"])
        #expect(proxied.status == 200)
        #expect(origin.saw("/admin/page"), "the request reached the origin")

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let shadowed = lines.filter {
            $0.contains(#""shadow":[{"handler":"new-block","decision":"cancel","action":"block","location":null}]"#)
        }
        #expect(shadowed.contains { $0.contains("https://a.example/admin/users") }, "decide: \(lines)")
        #expect(shadowed.contains { $0.contains("https://a.example/admin/settings") }, "authz: \(lines)")
        #expect(shadowed.contains { $0.contains("/admin/page") }, "proxy: \(lines)")
    }
}
