import Foundation
import Testing

/// Readiness split in two (issue 28, item 2): `/readyz` says whether decisions can be served
/// (a policy is active, no drain), `/readyz/intake` whether shares can be stored too. A
/// database outage must never take a replica's decision capacity out of its Service: with
/// PostgreSQL stopped, `/readyz` stays 200 and decisions are answered, while the intake
/// readiness is 503 with a problem body, and recovers by itself when the database is back.
@Suite("Readiness split: decisions vs intake", .serialized)
struct ReadinessSplitLiveTests {
    /// Polls `url` until it answers `status`, within `seconds` (nil when it never did).
    static func poll(_ url: String, until status: Int, seconds: TimeInterval) -> Curl.Response? {
        PostgresReplicaTests.waitFor(url, status: status, seconds: seconds)
    }

    @Test("PostgreSQL stopped: /readyz 200 and decisions served on both listeners, /readyz/intake 503 problem, then recovers")
    func databaseOutageKeepsDecisionsReady() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let uri = try cluster.createDatabase()
        let daemon = try DaemonProcess(
            arguments: ["--admin-listen", "127.0.0.1:0"], environment: ["NAVPOLICY_INTAKE_DATABASE_URL": uri])
        let adminPort = try #require(daemon.loggedPort("admin.listening"), "\(daemon.logLines)")
        let bases = [daemon.baseURL, "http://127.0.0.1:\(adminPort)"]

        // Both readiness probes are 200 while everything is up (the first probe connects).
        for base in bases {
            #expect(Self.poll(base + "/readyz/intake", until: 200, seconds: 15)?.status == 200, "\(base)")
            #expect(try Curl.request(base + "/readyz").status == 200)
        }

        try cluster.stopServer()
        for base in bases {
            let intake = try #require(Self.poll(base + "/readyz/intake", until: 503, seconds: 10))
            #expect(intake.status == 503, "intake readiness with the database stopped: \(intake.body)")
            #expect(intake.headers["content-type"] == "application/problem+json")
            #expect((intake.json?["type"] as? String)?.hasSuffix(":storage-unavailable") == true, "\(intake.body)")
            #expect((intake.json?["intake"] as? [String: Any])?["fault"] as? String == "unreachable", "\(intake.body)")
            #expect(Int(intake.headers["retry-after"] ?? "").map { $0 >= 1 } == true)

            let ready = try Curl.request(base + "/readyz")
            #expect(ready.status == 200, "decision readiness must not depend on the intake store: \(ready.body)")
            #expect(ready.json?["status"] as? String == "ready")
            #expect(try Curl.request(base + "/healthz").status == 200)
        }
        // Decisions are served meanwhile, GET and POST, and intake itself says why it cannot store.
        for _ in 0..<3 {
            let decision = try daemon.decide("https://app.example.com/logout")
            #expect(decision.status == 200 && decision.json?["decision"] as? String == "cancel", "\(decision.body)")
        }
        let posted = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "-d", #"{"url":"https://a.example/"}"#])
        #expect(posted.status == 200, "\(posted.body)")
        let share = try Curl.request(
            daemon.baseURL + "/v1/intake", ["-H", "Content-Type: application/json", "-d", #"{"url":"https://a.example/x"}"#])
        #expect(share.status == 503, "\(share.body)")

        // Back: intake readiness recovers in the same process, and a share is stored.
        try cluster.start()
        for base in bases {
            let recovered = Self.poll(base + "/readyz/intake", until: 200, seconds: 15)
            #expect(recovered?.status == 200, "intake readiness after the database came back: \(recovered?.body ?? "")")
            #expect((recovered?.json?["intake"] as? [String: Any])?["status"] as? String == "ok")
        }
        var created = 0
        let deadline = Date().addingTimeInterval(15)
        while created != 201, Date() < deadline {
            created =
                (try? Curl.request(
                    daemon.baseURL + "/v1/intake",
                    ["-H", "Content-Type: application/json", "-d", #"{"url":"https://after.example/"}"#]
                ).status) ?? 0
            if created != 201 { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(created == 201)
    }

    @Test("intake off: /readyz 200, /readyz/intake 404 intake-disabled (not a false 'ready')")
    func intakeDisabledHasNoIntakeReadiness() throws {
        let daemon = try DaemonProcess(
            config: #"{"server": {"watchConfig": false}, "intake": {"enabled": false}, "handlers": []}"#)
        #expect(try Curl.request(daemon.baseURL + "/readyz").status == 200)
        let intake = try Curl.request(daemon.baseURL + "/readyz/intake")
        #expect(intake.status == 404, "\(intake.body)")
        #expect((intake.json?["type"] as? String)?.hasSuffix(":intake-disabled") == true, "\(intake.body)")
    }

    @Test("SQLite store: /readyz/intake reports it (200 with intake ok); /readyz carries no intake member")
    func sqliteStoreReported() throws {
        let daemon = try DaemonProcess()
        let intake = try Curl.request(daemon.baseURL + "/readyz/intake")
        #expect(intake.status == 200, "\(intake.body)")
        #expect((intake.json?["intake"] as? [String: Any])?["status"] as? String == "ok")
        let ready = try Curl.request(daemon.baseURL + "/readyz")
        #expect(ready.status == 200 && ready.json?["intake"] == nil, "\(ready.body)")
    }

    // MARK: - Which probe is which, in the Kubernetes manifests (issue 28, item 3)

    @Test("shipped Deployments: --admin-listen, readiness /readyz, liveness /healthz on the admin port, commented")
    func shippedManifestsProbeDecisionReadiness() throws {
        let result = try DeployManifestTests.check(DeployManifestTests.manifests)
        #expect(result.status == 0, "\(result.findings)")
        for file in ["deployment.yaml", "postgres/deployment.yaml", "decision-only/deployment.yaml"] {
            let text = try String(
                contentsOf: DeployManifestTests.manifests.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("--admin-listen"), "\(file)")
            #expect(text.contains("Readiness = DECISION readiness"), "\(file) must say which probe is which")
            #expect(text.contains("/readyz/intake"), "\(file) must say why intake readiness is no pod probe")
        }
        let service = try String(
            contentsOf: DeployManifestTests.manifests.appendingPathComponent("postgres/service.yaml"), encoding: .utf8)
        #expect(!service.contains("9090") && !service.contains("admin"), "the Service exposes only the decision port")
    }

    @Test("the manifest check refuses an intake readiness probe, no --admin-listen, an exposed admin port")
    func manifestCheckCatchesProbeMistakes() throws {
        let copy = try DeployManifestTests.editedCopy([
            "postgres/deployment.yaml": { $0.replacingOccurrences(of: "path: /readyz\n", with: "path: /readyz/intake\n") },
            "decision-only/deployment.yaml": {
                $0.replacingOccurrences(of: #"                 "--admin-listen", "0.0.0.0:9090"]"#, with: "                 ]")
            },
            "postgres/service.yaml": {
                $0 + "    - name: admin\n      port: 9090\n      targetPort: admin\n      protocol: TCP\n"
            },
        ])
        let result = try DeployManifestTests.check(copy)
        #expect(result.status == 1)
        let expected = [
            "readinessProbe is /readyz/intake, not /readyz", "runs navpolicyd serve without --admin-listen",
            "Service navpolicyd exposes the admin port",
        ]
        for text in expected {
            #expect(result.findings.contains { $0.contains(text) }, "no finding \"\(text)\" in \(result.findings)")
        }
    }
}
