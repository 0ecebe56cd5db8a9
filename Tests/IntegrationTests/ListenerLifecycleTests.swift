import Foundation
import TestSelection
import Testing

/// The admin listener and shutdown: probes that a saturated API port cannot starve, new
/// connections refused at once during a drain, and every listener drained together.
@Suite("Listeners and drain", .serialized, .tags(.live, .sanitizerRelevant))
struct ListenerLifecycleTests {
    /// Tries one TCP connect to 127.0.0.1:`port`; returns the errno (0 = connected).
    static func connectError(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
    }

    static let adminConfig = """
        {"server": {"adminListen": "127.0.0.1:0", "threads": 1, "connectionLimit": 4, "perIPConnectionLimit": 0},
         "handlers": []}
        """

    @Test("server.adminListen: probes and scrapes answer on their own listener while the API listener is full")
    func adminListenerSurvivesSaturation() throws {
        let daemon = try DaemonProcess(config: Self.adminConfig)
        let adminPort = try #require(daemon.loggedPort("admin.listening"), "\(daemon.logLines)")
        let admin = "http://127.0.0.1:\(adminPort)"
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        // Fill the API listener's 4 connections with idle clients (the head timeout is 10 s).
        var idle: [RawConnection] = []
        for _ in 0..<8 { idle.append(try RawConnection(port: daemon.port)) }
        Thread.sleep(forTimeInterval: 0.3)
        let starved = (try? Curl.request(daemon.baseURL + "/healthz", ["--max-time", "3"]).status) ?? 0
        #expect(starved != 200, "the API listener is full: its own probe cannot get in")
        #expect(try Curl.request(admin + "/healthz", ["--max-time", "3"]).status == 200)
        #expect(try Curl.request(admin + "/readyz", ["--max-time", "3"]).status == 200)
        let metrics = try Curl.request(admin + "/metrics", ["--max-time", "3"])
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("navpolicyd_"))
        withExtendedLifetime(idle) {}
    }

    @Test("with an admin listener the API port keeps decisions and probes; admin routes move to the admin port")
    func routesSplitBetweenListeners() throws {
        let token = "aD7mN2pQ9rS4tU1vW6xY"
        let daemon = try DaemonProcess(
            config: #"{"server": {"adminListen": "127.0.0.1:0", "watchConfig": false}, "handlers": []}"#,
            environment: ["NAVPOLICY_ADMIN_TOKEN": token])
        let adminPort = try #require(daemon.loggedPort("admin.listening"))
        let admin = "http://127.0.0.1:\(adminPort)"
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=https://a.example/").status == 200)
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        #expect(try Curl.request(daemon.baseURL + "/readyz").status == 200)
        for path in ["/metrics", "/v1/policy"] {
            let moved = try Curl.request(daemon.baseURL + path)
            #expect(moved.status == 404, "\(path) is served on the admin listener only")
            #expect(moved.headers["content-type"] == "application/problem+json")
        }
        #expect(try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"]).status == 404)
        #expect(try Curl.request(admin + "/v1/decide?url=https://a.example/").status == 404)
        #expect(try Curl.request(admin + "/v1/policy").status == 200)
        #expect(try Curl.request(admin + "/v1/policy/reload", ["-X", "POST"]).status == 401, "admin token rules unchanged")
        let reloaded = try Curl.request(admin + "/v1/policy/reload", ["-X", "POST", "-H", "Authorization: Bearer \(token)"])
        #expect(reloaded.status == 200)
    }

    @Test("a reload that changes server.adminListen warns that it needs a restart")
    func adminListenChangeNeedsRestart() throws {
        let daemon = try DaemonProcess(
            config: #"{"server": {"adminListen": "127.0.0.1:0", "watchConfig": false}, "handlers": []}"#)
        let adminPort = try #require(daemon.loggedPort("admin.listening"))
        try Data(#"{"server": {"adminListen": "127.0.0.1:1", "watchConfig": false}, "handlers": []}"#.utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath))
        #expect(try Curl.request("http://127.0.0.1:\(adminPort)/v1/policy/reload", ["-X", "POST"]).status == 200)
        #expect(daemon.waitForLog { $0.contains("policy.server_settings_changed") } != nil, "\(daemon.logLines)")
    }

    @Test("listeners on one port: validate reports the pointer (exit 1), serve with clashing flags exits 2")
    func clashingListenersAreRejected() throws {
        let sameAsListen = try BinaryRunner.temporaryFile(
            #"{"server": {"listen": "127.0.0.1:8080", "adminListen": "0.0.0.0:8080"}, "handlers": []}"#)
        let validated = try BinaryRunner.run(["validate", "--config", sameAsListen])
        #expect(validated.status == 1, "validate exits 1 for an invalid config")
        #expect((validated.stdout + validated.stderr).contains("/server/adminListen"), "\(validated)")

        let proxyOnAdmin = try BinaryRunner.temporaryFile(
            #"{"server": {"adminListen": "127.0.0.1:9090"}, "proxy": {"listen": "127.0.0.1:9090"}, "handlers": []}"#)
        let proxyResult = try BinaryRunner.run(["validate", "--config", proxyOnAdmin])
        #expect(proxyResult.status == 1)
        #expect((proxyResult.stdout + proxyResult.stderr).contains("/proxy/listen"), "\(proxyResult)")
        #expect((proxyResult.stdout + proxyResult.stderr).contains("server.adminListen"))

        let config = try BinaryRunner.temporaryFile(#"{"handlers": []}"#)
        let served = try BinaryRunner.run(
            ["serve", "--config", config, "--listen", "127.0.0.1:18093", "--admin-listen", "127.0.0.1:18093"])
        #expect(served.status == 2)
        #expect(served.stderr.contains("admin listen address 127.0.0.1:18093 is the same address as"), "\(served.stderr)")
    }

    @Test("SIGTERM refuses new connections at once while a request in flight finishes")
    func drainRefusesNewConnections() throws {
        let drainSeconds = 6.0
        let daemon = try DaemonProcess(config: #"{"server": {"drainTimeoutSeconds": 6}, "handlers": []}"#)
        let body = #"{"url":"https://app.example.com/logout"}"#
        let slow = try RawConnection(port: daemon.port)
        slow.send(
            "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body.prefix(10))
        #expect(daemon.waitForLog { $0.contains("http.request") || $0.contains("listening") } != nil)
        Thread.sleep(forTimeInterval: 0.2)
        let signalled = ContinuousClock.now
        daemon.signal(SIGTERM)
        // Bounded wait for the refusal; a backlog that still accepts would hang here until exit.
        var refusedAfter: Duration?
        while ContinuousClock.now - signalled < .seconds(3) {
            if Self.connectError(port: daemon.port) == ECONNREFUSED {
                refusedAfter = ContinuousClock.now - signalled
                break
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let refused = try #require(refusedAfter, "a new connect() was still accepted 3 s into a \(drainSeconds) s drain")
        #expect(daemon.process.isRunning, "still draining the request in flight")
        slow.send(String(body.dropFirst(10)))
        let response = slow.receiveResponse()
        #expect(response.status == 200)
        #expect(response.body.contains(#""url":"https://app.example.com/logout""#))
        #expect(daemon.waitForExit() == 0)
        let seconds = Double(refused.components.attoseconds) / 1e18 + Double(refused.components.seconds)
        print("drain: new connections refused \(seconds) s after SIGTERM (ratio to the drain timeout \(seconds / drainSeconds))")
    }

    @Test(
        "with the proxy listener on (and the admin one), the shutdown takes one drain timeout, not one per listener",
        arguments: [false, true])
    func listenersDrainTogether(withAdmin: Bool) throws {
        let admin = withAdmin ? #", "adminListen": "127.0.0.1:0""# : ""
        let daemon = try DaemonProcess(
            config: #"{"server": {"drainTimeoutSeconds": 2\#(admin)}, "proxy": {"listen": "127.0.0.1:0"}, "handlers": []}"#)
        var ports = [daemon.port, try #require(daemon.loggedPort("proxy.listening"))]
        if withAdmin { ports.append(try #require(daemon.loggedPort("admin.listening"))) }
        // Requests that never finish (the head timeout, 10 s, is far beyond the drain): each
        // listener waits for the whole drain timeout.
        let stuck = try ports.map { port in
            let connection = try RawConnection(port: port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: a.example\r\n")
            return connection
        }
        Thread.sleep(forTimeInterval: 0.3)
        let signalled = ContinuousClock.now
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let elapsed = ContinuousClock.now - signalled
        #expect(elapsed >= .milliseconds(1_800), "the drain waited for the requests in flight: \(elapsed)")
        // Listeners drained one after the other take at least 2 × 2 s; together, one drain plus
        // the exit (about 2.1 s, 3.3 s under ThreadSanitizer). The bound sits just under 2×.
        #expect(elapsed < .milliseconds(3_900), "one drain timeout (2 s) for all listeners, not 2 s each: \(elapsed)")
        print("drain: shutdown with \(ports.count) listeners took \(elapsed) for a 2 s drain timeout")
        withExtendedLifetime(stuck) {}
    }
}
