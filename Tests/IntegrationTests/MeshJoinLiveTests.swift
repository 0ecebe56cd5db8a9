import Foundation
import TestSelection
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 45, items 3 and 4, from outside: what a mesh joins its logs on and alerts on. A real
/// daemon with both ext_authz listeners and a decision log; real `CheckRequest`s through
/// `grpcio` (scripts/ext-authz-grpc-client.py), HTTP checks as Envoy's HTTP client writes them;
/// the decision log read from its file and `/metrics` scraped.
@Suite("decision-log join fields and ext_authz metrics, live", .serialized, .tags(.live))
struct MeshJoinLiveTests {
    static let config = """
        {
          "defaultDecision": "allow",
          "extAuthz": {"pathPrefix": "/authz"},
          "handlers": [ { "name": "logout", "type": "logout", "match": { "paths": ["/logout"] } } ]
        }
        """

    /// A daemon with both ext_authz listeners and a decision log, and their ports.
    static func start() throws -> (daemon: DaemonProcess, http: Int, grpc: Int, log: String) {
        try #require(
            FileManager.default.isExecutableFile(atPath: ExtAuthzGRPCLiveTests.python),
            "\(ExtAuthzGRPCLiveTests.python) is missing: run scripts/grpc-test-tools.sh (make test-deps does)")
        let log = try BinaryRunner.temporaryFile("", suffix: ".ndjson")
        let daemon = try DaemonProcess(
            config: config,
            arguments: [
                "--decision-log", log, "--ext-authz-listen", "127.0.0.1:0", "--ext-authz-grpc-listen", "127.0.0.1:0",
            ])
        let http = try #require(daemon.loggedPort("ext_authz.listening"), "no ext_authz.listening line")
        let grpc = try #require(daemon.loggedPort("ext_authz_grpc.listening"), "no ext_authz_grpc.listening line")
        return (daemon, http, grpc, log)
    }

    /// The log's lines as objects, once there are `count` of them (the writer flushes every 20 ms).
    static func lines(_ path: String, count: Int) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(10)
        var lines: [Substring] = []
        repeat {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n")
            if lines.count >= count { break }
            usleep(20_000)
        } while Date() < deadline
        try #require(lines.count == count, "\(lines.count) lines, expected \(count): \(lines)")
        return try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// One HTTP check as Envoy's HTTP client sends it, with the join fields the shipped bootstrap forwards.
    static func httpCheck(_ port: Int, path: String, forwardedFor: [String], requestID: String?) throws -> Curl.Response {
        var head = "GET \(path) HTTP/1.1\r\nhost: app.example.com\r\nx-forwarded-proto: https\r\n"
        for value in forwardedFor { head += "x-forwarded-for: \(value)\r\n" }
        if let requestID { head += "x-request-id: \(requestID)\r\n" }
        head += "content-length: 0\r\nconnection: close\r\n\r\n"
        return try EdgeHardeningLiveTests.rawResponse(port: port, head)
    }

    @Test("gRPC Check: frontend, Envoy's source address (not the TCP peer), requestId; decisionId as dynamic_metadata")
    func grpcJoinFields() throws {
        let (daemon, _, grpc, log) = try Self.start()
        let requestID = "8d2f6a1c-3b7e-4c55-9a0e-1f2d3c4b5a69"
        let allow = try ExtAuthzGRPCLiveTests.check(
            grpc, "GET", ("https", "app.example.com", "/home"), ["@id=\(requestID)", "@source=203.0.113.7"])
        #expect(allow["allowed"] as? Bool == true, "\(allow)")
        let headers = try #require(allow["headers"] as? [String: String])
        let metadata = try #require(allow["dynamicMetadata"] as? [String: String], "\(allow)")
        let id = try #require(headers["x-navigation-decision-id"])
        #expect(metadata == ["decisionId": id], "the decision id reaches Envoy's dynamic metadata")
        // A denial carries it too (the access log of a 403 joins as well); an id with a control
        // byte or past 128 bytes is not logged; a source that is no address is not logged either.
        let deny = try ExtAuthzGRPCLiveTests.check(
            grpc, "GET", ("https", "app.example.com", "/logout"), ["@id=" + String(repeating: "a", count: 129), "@source=ev\"il"])
        #expect(deny["allowed"] as? Bool == false && deny["code"] as? Int == 7, "\(deny)")
        #expect((deny["dynamicMetadata"] as? [String: String])?["decisionId"] != nil, "\(deny)")
        let control = try ExtAuthzGRPCLiveTests.check(grpc, "GET", ("https", "app.example.com", "/x"), ["@id=a\u{7}b"])
        #expect(control["allowed"] as? Bool == true, "\(control)")
        let lines = try Self.lines(log, count: 3)
        #expect(lines[0]["frontend"] as? String == "ext_authz_grpc")
        #expect(lines[0]["clientAddress"] as? String == "203.0.113.7", "Envoy's source, not 127.0.0.1: \(lines[0])")
        #expect(lines[0]["requestId"] as? String == requestID)
        #expect(lines[0]["decisionId"] as? String == id)
        #expect(lines[1]["requestId"] is NSNull && lines[1]["clientAddress"] is NSNull, "\(lines[1])")
        #expect(lines[2]["requestId"] is NSNull, "\(lines[2])")
        _ = daemon
    }

    @Test("HTTP service: the last X-Forwarded-For entry (Envoy's), x-request-id, and the decision id header on allows")
    func httpJoinFields() throws {
        let (daemon, http, _, log) = try Self.start()
        let allow = try Self.httpCheck(
            http, path: "/authz/home", forwardedFor: ["198.51.100.1, 10.9.9.9", "203.0.113.9"], requestID: "req-1")
        #expect(allow.status == 200)
        let id = try #require(allow.headers["x-navigation-decision-id"], "\(allow.headers)")
        // Two x-request-id fields: which one Envoy set is unknown, so none is logged.
        let twice = try EdgeHardeningLiveTests.rawResponse(
            port: http,
            "GET /authz/a HTTP/1.1\r\nhost: app.example.com\r\nx-forwarded-proto: https\r\nx-request-id: a\r\n"
                + "x-request-id: b\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        #expect(twice.status == 200)
        let lines = try Self.lines(log, count: 2)
        #expect(lines[0]["frontend"] as? String == "ext_authz_http")
        #expect(lines[0]["clientAddress"] as? String == "203.0.113.9", "\(lines[0])")
        #expect(lines[0]["requestId"] as? String == "req-1")
        #expect(lines[0]["decisionId"] as? String == id)
        #expect(lines[1]["requestId"] is NSNull && lines[1]["clientAddress"] is NSNull, "\(lines[1])")
        // /v1/decide: the TCP peer.
        #expect(try daemon.decide("https://app.example.com/").status == 200)
        let decide = try Self.lines(log, count: 3)[2]
        #expect(decide["frontend"] as? String == "decide" && decide["clientAddress"] as? String == "127.0.0.1", "\(decide)")
        #expect(decide["requestId"] is NSNull)
    }

    @Test("navpolicyd_ext_authz_checks_total{transport,result} and the frontend label of navpolicyd_decisions_total")
    func checkMetrics() throws {
        let (daemon, http, grpc, _) = try Self.start()
        func sample(_ name: String) throws -> Double? {
            VisibilityTests.sample(try Curl.request(daemon.baseURL + "/metrics").body, name)
        }
        // Every series is there before the first check, so an alert's rate() has one to read.
        #expect(try sample(#"navpolicyd_ext_authz_checks_total{transport="grpc",result="invalid"}"#) == 0)
        _ = try ExtAuthzGRPCLiveTests.check(grpc, "GET", ("https", "app.example.com", "/"))
        _ = try ExtAuthzGRPCLiveTests.check(grpc, "GET", ("https", "app.example.com", "/logout"))
        _ = try ExtAuthzGRPCLiveTests.check(grpc, "GET", ("https", "", "/"))
        let malformed = try ExtAuthzGRPCLiveTests.client(
            ["raw", "\(grpc)", "/envoy.service.auth.v3.Authorization/Check", "0a05ff"])
        #expect(malformed["transport"] as? String == "INVALID_ARGUMENT", "\(malformed)")
        #expect(try Self.httpCheck(http, path: "/authz/", forwardedFor: [], requestID: nil).status == 200)
        #expect(try Self.httpCheck(http, path: "/authz/logout", forwardedFor: [], requestID: nil).status == 403)
        #expect(try Self.httpCheck(http, path: "/outside", forwardedFor: [], requestID: nil).status == 400)
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        for (series, value) in [
            (#"navpolicyd_ext_authz_checks_total{transport="grpc",result="allow"}"#, 1.0),
            (#"navpolicyd_ext_authz_checks_total{transport="grpc",result="deny"}"#, 1),
            (#"navpolicyd_ext_authz_checks_total{transport="grpc",result="invalid"}"#, 2),
            (#"navpolicyd_ext_authz_checks_total{transport="http",result="allow"}"#, 1),
            (#"navpolicyd_ext_authz_checks_total{transport="http",result="deny"}"#, 1),
            (#"navpolicyd_ext_authz_checks_total{transport="http",result="invalid"}"#, 1),
            (#"navpolicyd_decisions_total{handler="",decision="allow",action="",frontend="ext_authz_grpc"}"#, 1),
            (#"navpolicyd_decisions_total{handler="logout",decision="cancel",action="logout",frontend="ext_authz_grpc"}"#, 1),
            (#"navpolicyd_decisions_total{handler="logout",decision="cancel",action="logout",frontend="ext_authz_http"}"#, 1),
            // The histogram keeps its labels: both transports are ext_authz there.
            (#"navpolicyd_decision_duration_seconds_count{frontend="ext_authz"}"#, 4),
        ] {
            #expect(VisibilityTests.sample(metrics, series) == value, "\(series) in \(metrics)")
        }
    }

    @Test("navpolicyd_policy_config_valid follows each reload attempt: 0 after a bad edit, 1 once fixed")
    func configValid() throws {
        let daemon = try DaemonProcess(config: Self.config)
        func valid() throws -> Double? {
            VisibilityTests.sample(try Curl.request(daemon.baseURL + "/metrics").body, "navpolicyd_policy_config_valid")
        }
        #expect(try valid() == 1)
        try #"{"handlers": [{"name": "x", "type": "nope"}]}"#.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(daemon.waitForLog { $0.contains(#""event":"policy.reload_failed""#) } != nil)
        #expect(try valid() == 0)
        try Self.config.replacingOccurrences(of: "/logout", with: "/bye").write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(daemon.waitForLog { $0.contains(#""event":"policy.reloaded""#) } != nil)
        #expect(try valid() == 1)
    }

    @Test("/v1/status and /status show the decision log: path, bytes of maxBytes, redaction, drops")
    func statusShowsTheLog() throws {
        let (daemon, _, _, log) = try Self.start()
        #expect(try daemon.decide("https://app.example.com/").status == 200)
        _ = try Self.lines(log, count: 1)
        let report = try #require(try Curl.request(daemon.baseURL + "/v1/status", ["-H", "Accept: application/json"]).json)
        let section = try #require(report["decisionLog"] as? [String: Any], "\(report)")
        #expect(section["enabled"] as? Bool == true && section["path"] as? String == log)
        let size = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int
        #expect(section["bytes"] as? Int == size, "\(section)")
        #expect(section["maxBytes"] as? Int == 512 << 20 && section["redaction"] as? Bool == false)
        #expect(section["dropped"] as? Int == 0)
        let page = try Curl.request(daemon.baseURL + "/status", ["-H", "Accept: text/html"]).body
        #expect(page.contains(#"<section id="decision-log"><h2>Decision log</h2>"#), "\(page)")
        #expect(page.contains(#"<dd id="decision-log-size">\#(size ?? -1) of \#(512 << 20) bytes"#), "\(page)")
        #expect(page.contains(#"<dd id="decision-log-redaction">passwords only</dd>"#))
    }
}
