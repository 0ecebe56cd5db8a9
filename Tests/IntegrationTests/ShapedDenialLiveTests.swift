import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// A handler's `response` and `extAuthz.dryRun` from outside, through every front end that
/// answers HTTP: the ext_authz HTTP service (raw requests as Envoy's HTTP client sends them),
/// gRPC `Check` (grpcio with Envoy's generated API), the forward proxy (curl -x) and
/// `/v1/authz` behind the shipped nginx config.
@Suite("Shaped denials and dry run, live", .serialized, .tags(.live))
struct ShapedDenialLiveTests {
    /// A retired API answered 410 with a Link (and the cookie kept from the app in a dry run),
    /// a sign-in wall answered 401, and the default decision cancelling everything else.
    static let handlers = """
        "handlers": [
          { "name": "home", "type": "allow", "match": { "paths": ["/home"] } },
          { "name": "retired", "type": "cancel", "match": { "pathPrefixes": ["/v1/"] },
            "response": { "status": 410, "headers": { "Link": "<https://app.example.com/v2/>" },
                          "removeRequestHeaders": ["Cookie", "Authorization"] } },
          { "name": "members", "type": "cancel", "match": { "pathPrefixes": ["/members/"] },
            "response": { "status": 401, "headers": { "WWW-Authenticate": "Bearer realm=\\"app\\"" } } }
        ]
        """

    static func config(dryRun: Bool) -> String {
        #"{"defaultDecision": "cancel", "extAuthz": {"pathPrefix": "/authz", "dryRun": \#(dryRun)},"# + handlers + "}"
    }

    static func extAuthz(dryRun: Bool, log: String? = nil) throws -> ExtAuthzHTTPLiveTests.Service {
        try ExtAuthzHTTPLiveTests.Service(
            config: config(dryRun: dryRun), arguments: log.map { ["--decision-log", $0] } ?? [])
    }

    @Test("ext_authz HTTP: the handler's status and fields reach Envoy; the default decision stays 403")
    func extAuthzHTTPShaped() throws {
        let service = try Self.extAuthz(dryRun: false)
        let retired = try service.check(path: "/authz/v1/items")
        #expect(retired.status == 410, "\(retired)")
        #expect(retired.headers["link"] == "<https://app.example.com/v2/>")
        #expect(retired.headers["x-navigation-handler"] == "retired")
        #expect(retired.json?["status"] as? Int == 410)
        #expect(retired.headers["x-envoy-auth-headers-to-remove"] == nil)
        let members = try service.check(path: "/authz/members/1")
        #expect(members.status == 401 && members.headers["www-authenticate"] == #"Bearer realm="app""#)
        #expect(try service.check(path: "/authz/other").status == 403)
    }

    @Test("ext_authz HTTP dry run: every check 200, cancels marked, removals for Envoy, counted and logged dryRun")
    func extAuthzHTTPDryRun() throws {
        let log = TestScratch.path("dry-run-decisions")
        let service = try Self.extAuthz(dryRun: true, log: log)
        let retired = try service.check(path: "/authz/v1/items")
        #expect(retired.status == 200, "\(retired)")
        #expect(retired.headers["x-navigation-dry-run"] == "cancel")
        #expect(retired.headers["x-navigation-decision"] == "allow")
        #expect(retired.headers["x-navigation-handler"] == nil)
        #expect(retired.headers["x-envoy-auth-headers-to-remove"] == "cookie,authorization")
        let byDefault = try service.check(path: "/authz/other")
        #expect(byDefault.status == 200 && byDefault.headers["x-navigation-dry-run"] == "cancel")
        let home = try service.check(path: "/authz/home")
        #expect(home.status == 200 && home.headers["x-navigation-dry-run"] == nil)
        #expect(
            try service.metrics().contains(#"navpolicyd_dry_run_cancels_total{frontend="ext_authz_http"} 2"#))
        // The log records what the policy decided, and that it was let through.
        var lines: [String] = []
        for _ in 0..<100 {
            lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.count >= 3 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let dry = lines.filter { $0.contains(#""dryRun":true"#) }
        #expect(dry.count == 2, "\(lines)")
        #expect(dry.allSatisfy { $0.contains(#""decision":{"decision":"cancel""#) }, "\(dry)")
        #expect(lines.contains { $0.contains(#""handler":"home""#) && !$0.contains("dryRun") }, "\(lines)")
    }

    @Test("ext_authz gRPC: denied_response with the handler's status and headers; dry run: OK with headers_to_remove")
    func extAuthzGRPC() throws {
        for dryRun in [false, true] {
            let daemon = try DaemonProcess(
                config: Self.config(dryRun: dryRun), arguments: ["--ext-authz-grpc-listen", "127.0.0.1:0"])
            let port = try #require(daemon.loggedPort("ext_authz_grpc.listening"))
            try #require(FileManager.default.isExecutableFile(atPath: ExtAuthzGRPCLiveTests.python))
            let answer = try ExtAuthzGRPCLiveTests.check(port, "GET", ("https", "app.example.com", "/v1/items"))
            let headers = try #require(answer["headers"] as? [String: String], "\(answer)")
            // Every decided answer names its decision for Envoy's access log, the dry-run
            // allows of a rollout most of all (attack round 8, F1).
            #expect((answer["dynamicMetadata"] as? [String: String])?["decisionId"] != nil, "\(answer)")
            if dryRun {
                #expect(answer["code"] as? Int == 0 && answer["allowed"] as? Bool == true, "\(answer)")
                #expect(headers["x-navigation-dry-run"] == "cancel", "\(headers)")
                #expect(answer["headersToRemove"] as? [String] == ["cookie", "authorization"], "\(answer)")
                let metrics = try Curl.request(daemon.baseURL + "/metrics").body
                #expect(metrics.contains(#"navpolicyd_dry_run_cancels_total{frontend="ext_authz_grpc"} 1"#))
            } else {
                #expect(answer["code"] as? Int == 7 && answer["httpStatus"] as? Int == 410, "\(answer)")
                #expect(headers["link"] == "<https://app.example.com/v2/>", "\(headers)")
                #expect((answer["body"] as? String)?.contains(#""status":410"#) == true)
            }
        }
    }

    @Test("forward proxy: the handler's status and fields, the HTML page for a browser too; never forwarded")
    func proxy() throws {
        let daemon = try DaemonProcess(config: Self.config(dryRun: false), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try #require(daemon.loggedPort("proxy.listening"))
        let proxy = ["-x", "http://127.0.0.1:\(port)"]
        let problem = try Curl.request("http://app.example.com/v1/items", proxy)
        #expect(problem.status == 410, "\(problem)")
        #expect(problem.headers["link"] == "<https://app.example.com/v2/>")
        #expect(problem.json?["status"] as? Int == 410)
        let page = try Curl.request("http://app.example.com/members/1", proxy + ["-H", "Accept: text/html"])
        #expect(page.status == 401 && page.body.contains("navpolicy-blocked"), "\(page)")
        #expect(page.headers["www-authenticate"] == #"Bearer realm="app""#)
    }

    @Test("/v1/authz behind nginx: 401 passes through; another status is nginx's 403, named in X-Navigation-Status")
    func authzBehindNginx() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: #"{"defaultDecision": "allow","# + Self.handlers + "}")
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        #expect(try Curl.request(nginx.baseURL + "/members/1").status == 401)
        let retired = try Curl.request(nginx.baseURL + "/v1/items", ["-H", "Accept: text/html"])
        #expect(retired.status == 403 && retired.headers["x-navigation-handler"] == "retired", "\(retired)")
        #expect(!origin.saw("/v1/") && !origin.saw("/members/"))
        // What nginx reads from the subrequest's answer.
        let answer = try Curl.request(
            daemon.baseURL + "/v1/authz",
            ["-H", "X-Original-URL: https://app.example.com/v1/items"])
        #expect(answer.status == 403 && answer.headers["x-navigation-status"] == "410", "\(answer)")
        #expect(answer.headers["link"] == "<https://app.example.com/v2/>")
    }
}
