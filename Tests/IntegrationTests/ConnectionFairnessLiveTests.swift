import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// Issue 26, items 5, 7 and 8, from outside: one address cannot starve a listener (the admin
/// listener included), many addresses of one network share one budget, and the views that
/// show the chain need the token `server.requireTokenForDecide` asks for.
@Suite("connection fairness and the admin listener", .serialized, .tags(.live, .sanitizerRelevant))
struct ConnectionFairnessLiveTests {
    /// `count` GETs of `path` from `source` (a loopback address of its own), each given 2 s;
    /// returns how many were answered 200. The slow clients drip between them, so they
    /// hold their connections all along.
    static func answered(_ url: String, from source: String, count: Int, dripping slow: [SlowClients]) -> Int {
        var ok = 0
        for _ in 0..<count {
            for clients in slow { clients.drip() }
            let status = (try? Curl.request(url, ["--interface", source, "--max-time", "2"]).status) ?? 0
            if status == 200 { ok += 1 }
        }
        return ok
    }

    /// Drips until the server has closed all but `limit` of the slow connections, for at
    /// most 5 s: a listen backlog of 64 makes the kernel drop some SYNs of a burst, and
    /// those connect only on the client's retry a second or more later.
    static func settle(_ slow: [SlowClients], atMost limit: Int) -> Int {
        let deadline = Date().addingTimeInterval(5)
        var open = Int.max
        while Date() < deadline {
            for clients in slow { clients.drip() }
            open = slow.reduce(0) { $0 + $1.stillOpen }
            if open <= limit { break }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return open
    }

    /// A daemon with the limits a config could already set before this change (64 in total,
    /// 8 per address; now 32 per /24, derived), and 8 slow connections from each of `hosts`
    /// addresses in each 127.0.`network`.0/24 of `networks`.
    static func flooded(networks: [Int], hosts: Int) throws -> (DaemonProcess, [SlowClients]) {
        #expect(raiseDescriptorLimit() >= 1_024)
        let daemon = try DaemonProcess(
            config: #"{"server": {"connectionLimit": 64, "perIPConnectionLimit": 8}, "handlers": []}"#)
        var flood: [SlowClients] = []
        for network in networks {
            for host in 1...hosts {
                flood.append(try SlowClients(count: 8, port: daemon.port, source: "127.0.\(network).\(host)"))
            }
        }
        return (daemon, flood)
    }

    @Test("item 5: 200 slow connections from one address leave the admin listener's probes to another address")
    func adminListenerKeepsRoomForProbes() throws {
        #expect(raiseDescriptorLimit() >= 1_024)
        let daemon = try DaemonProcess(config: #"{"server": {"adminListen": "127.0.0.1:0"}, "handlers": []}"#)
        let adminPort = try #require(daemon.loggedPort("admin.listening"), "\(daemon.logLines)")
        // Before this change the admin listener allowed one address 64 connections of its 64.
        let flood = try SlowClients(count: 200, port: adminPort, source: "127.0.0.1")
        let held = Self.settle([flood], atMost: 4)
        #expect(held <= 4, "one address holds at most 4 admin connections: \(held) open")
        let base = "http://127.0.0.1:\(adminPort)"
        let probes = Self.answered(base + "/healthz", from: "127.0.0.2", count: 14, dripping: [flood])
        #expect(probes == 14, "health checks from another address while one address floods the admin listener")
        let scrape = try Curl.request(base + "/metrics", ["--interface", "127.0.0.3", "--max-time", "2"])
        #expect(scrape.status == 200, "a Prometheus scrape from a third address")
    }

    @Test("item 5: eight networks flooding the admin listener still leave the probes a slot")
    func adminListenerOutlastsEightNetworks() throws {
        #expect(raiseDescriptorLimit() >= 1_024)
        let daemon = try DaemonProcess(config: #"{"server": {"adminListen": "127.0.0.1:0"}, "handlers": []}"#)
        let adminPort = try #require(daemon.loggedPort("admin.listening"), "\(daemon.logLines)")
        // The outside attack's flood: 8 slow connections from each of 4 addresses in each of
        // eight /24s. With 64 in total and 8 per address, eight networks took every slot and
        // /healthz from a ninth timed out until the head deadline cut them.
        var flood: [SlowClients] = []
        for network in 11...18 {
            for host in 1...4 {
                flood.append(try SlowClients(count: 8, port: adminPort, source: "127.0.\(network).\(host)"))
            }
        }
        let held = Self.settle(flood, atMost: 8 * 16)
        #expect(held <= 8 * 16, "each network holds at most 16 admin connections: \(held) open")
        let base = "http://127.0.0.1:\(adminPort)"
        let probes = Self.answered(base + "/healthz", from: "127.0.200.1", count: 14, dripping: flood)
        #expect(probes == 14, "health checks from a ninth network while eight flood the admin listener")
    }

    @Test("item 5: a per-address limit is kept below the total on the API listener too")
    func apiListenerKeepsRoomForOthers() throws {
        #expect(raiseDescriptorLimit() >= 1_024)
        // Only the total is set: the per-address and per-network limits are derived below it
        // (16 and 32); before this change the default 256 let one address take all 64.
        let daemon = try DaemonProcess(config: #"{"server": {"connectionLimit": 64}, "handlers": []}"#)
        let flood = try SlowClients(count: 200, port: daemon.port, source: "127.0.0.1")
        let held = Self.settle([flood], atMost: 16)
        #expect(held <= 16, "one address holds at most 16 of 64: \(held) open")
        let probes = Self.answered(daemon.baseURL + "/healthz", from: "127.0.0.2", count: 14, dripping: [flood])
        #expect(probes == 14)
        let started = try #require(daemon.waitForLog { $0.contains(#""event":"http.started""#) })
        #expect(started.contains(#""perIPConnectionLimit":16"#), "\(started)")
        #expect(started.contains(#""perSubnetConnectionLimit":32"#), "\(started)")
    }

    @Test("item 7: ten addresses of one /24 share one budget; another /24 still gets in")
    func addressesOfOneNetworkShareABudget() throws {
        // Ten addresses at 8 each used to take all 64. The /24 now gets half (32, derived).
        let (daemon, flood) = try Self.flooded(networks: [1], hosts: 10)
        let held = Self.settle(flood, atMost: 32)
        #expect(held <= 32, "the attacking /24 holds at most 32 connections: \(held)")
        #expect(held >= 24, "the /24 still gets its share: \(held)")
        let others = Self.answered(daemon.baseURL + "/healthz", from: "127.0.2.1", count: 10, dripping: flood)
        #expect(others == 10, "a client of another /24 while one /24 floods")
        let decide = try Curl.request(
            daemon.baseURL + "/v1/decide?url=https://a.example/", ["--interface", "127.0.3.1", "--max-time", "2"])
        #expect(decide.status == 200)
        // A further address of the flooding /24 is refused: the share is per network.
        let neighbour = (try? Curl.request(daemon.baseURL + "/healthz", ["--interface", "127.0.1.200", "--max-time", "2"]))
        #expect(neighbour?.status != 200, "a new address of the full /24 is refused")
        let cut = daemon.waitForLog(timeout: 8) { $0.contains(#""subnetLimitRefusals""#) }
        #expect(cut?.contains(#""lastRefusedSubnet":"127.0.1.0/24""#) == true, "\(daemon.logLines.suffix(5))")
        #expect(cut?.contains(#""perSubnetConnectionLimit":32"#) == true)
    }

    @Test("item 7: two networks at their share leave the last eighth to a third one")
    func twoNetworksCannotFillTheListener() throws {
        // Two /24s at 32 each used to take all 64; the last 8 slots are now kept for networks
        // holding fewer than 8.
        let (daemon, flood) = try Self.flooded(networks: [1, 2], hosts: 5)
        let held = Self.settle(flood, atMost: 56)
        #expect(held <= 56, "two heavy /24s hold at most 56 of 64: \(held)")
        let others = Self.answered(daemon.baseURL + "/healthz", from: "127.0.3.1", count: 10, dripping: flood)
        #expect(others == 10, "a client of a third /24 while two /24s flood")
    }

    @Test("items 5 and 7: limits at or above the total are refused with a pointer")
    func unfairLimitsAreRefused() throws {
        let cases: [(String, String)] = [
            (
                #"{"connectionLimit": 64, "perIPConnectionLimit": 64}"#,
                "/server/perIPConnectionLimit: perIPConnectionLimit 64 must be below connectionLimit 64"
            ),
            (
                #"{"connectionLimit": 64, "perSubnetConnectionLimit": 100}"#,
                "/server/perSubnetConnectionLimit: perSubnetConnectionLimit 100 must be below connectionLimit 64"
            ),
            (
                #"{"perIPConnectionLimit": 300, "perSubnetConnectionLimit": 200}"#,
                "/server/perIPConnectionLimit: perIPConnectionLimit 300 is above perSubnetConnectionLimit 200"
            ),
            (#"{"connectionLimit": 1}"#, "/server/connectionLimit: 1 is out of range 2...100000"),
        ]
        for (server, message) in cases {
            let config = try BinaryRunner.temporaryFile(#"{"handlers": [], "server": \#(server)}"#)
            let result = try BinaryRunner.run(["validate", "--config", config])
            #expect(result.status == 1, "\(server)")
            #expect(result.stderr.contains(message), "\(message) in \(result.stderr)")
        }
        // 0 still turns a limit off (a listener behind one proxy), and is accepted.
        let open = try BinaryRunner.temporaryFile(#"{"handlers": [], "server": {"perIPConnectionLimit": 0}}"#)
        #expect(try BinaryRunner.run(["validate", "--config", open]).status == 0)
    }

    @Test("item 5: every Kubernetes variant limits its admin port with a NetworkPolicy; the checker notices one missing")
    func adminPortsHaveANetworkPolicy() throws {
        for variant in ["", "decision-only/", "postgres/"] {
            let url = DeployManifestTests.manifests.appendingPathComponent(variant + "networkpolicy.yaml")
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains("kind: NetworkPolicy") && text.contains("port: admin"), "\(variant)networkpolicy.yaml")
            let deployment = try String(
                contentsOf: DeployManifestTests.manifests.appendingPathComponent(variant + "deployment.yaml"), encoding: .utf8)
            #expect(deployment.contains(#""--admin-listen", "0.0.0.0:9090""#), "\(variant) probes on the admin listener")
        }
        let copy = TestScratch.url.appendingPathComponent("navpolicyd-k8s-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: DeployManifestTests.manifests, to: copy)
        try FileManager.default.removeItem(at: copy.appendingPathComponent("postgres/networkpolicy.yaml"))
        // A rule that admits the admin port from anywhere does not count.
        let open = copy.appendingPathComponent("decision-only/networkpolicy.yaml")
        let text = try String(contentsOf: open, encoding: .utf8)
        try text.replacingOccurrences(of: "        - port: http\n", with: "        - port: http\n        - port: admin\n")
            .write(to: open, atomically: true, encoding: .utf8)
        let result = try DeployManifestTests.check(copy)
        #expect(result.status == 1)
        for name in ["navpolicyd-shared", "navpolicyd-decide"] {
            let finding = "Deployment \(name) runs an admin listener that no NetworkPolicy limits"
            #expect(result.findings.contains { $0.contains(finding) }, "\(result.findings)")
        }
        #expect(!result.findings.contains { $0.contains("Deployment navpolicyd runs") })
    }

    static let token = "cF8nM3pQ7rS2tU9vW4xY"

    @Test("item 8: with requireTokenForDecide, /v1/policy and /metrics need the admin token; probes do not")
    func chainViewsNeedTheToken() throws {
        let environment = ["NAVPOLICY_ADMIN_TOKEN": Self.token]
        let single = try DaemonProcess(
            config: #"{"server": {"requireTokenForDecide": true}, "handlers": []}"#, environment: environment)
        let split = try DaemonProcess(
            config: #"{"server": {"requireTokenForDecide": true, "adminListen": "127.0.0.1:0"}, "handlers": []}"#,
            environment: environment)
        let adminPort = try #require(split.loggedPort("admin.listening"))
        for base in [single.baseURL, "http://127.0.0.1:\(adminPort)"] {
            for path in ["/v1/policy", "/metrics"] {
                let refused = try Curl.request(base + path)
                #expect(refused.status == 401, "\(base)\(path) without the token")
                #expect(refused.headers["content-type"] == "application/problem+json")
                #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
                let wrong = try Curl.request(base + path, ["-H", "Authorization: Bearer wrong-token-wrong-token"])
                #expect(wrong.status == 401, "\(base)\(path) with a wrong token")
                let allowed = try Curl.request(base + path, ["-H", "Authorization: Bearer \(Self.token)"])
                #expect(allowed.status == 200, "\(base)\(path) with the token")
            }
            #expect(try Curl.request(base + "/healthz").status == 200, "probes stay open")
            #expect(try Curl.request(base + "/readyz").status == 200, "probes stay open")
        }
        // Without the option both stay open, as documented.
        let open = try DaemonProcess(config: #"{"handlers": []}"#, environment: environment)
        #expect(try Curl.request(open.baseURL + "/v1/policy").status == 200)
        #expect(try Curl.request(open.baseURL + "/metrics").status == 200)
    }
}
