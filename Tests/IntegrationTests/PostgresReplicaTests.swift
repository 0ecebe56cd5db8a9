import Foundation
import Synchronization
import TestScratchSupport
import Testing

/// Several `navpolicyd serve` replicas sharing one PostgreSQL intake store, reached through a
/// round-robin nginx as a Kubernetes Service would spread them, under concurrent load, while
/// replicas are killed and PostgreSQL restarts.
@Suite("PostgreSQL intake across replicas", .serialized)
struct PostgresReplicaTests {
    static let json = ["-H", "Content-Type: application/json"]

    /// Posts `url` with `key`; curl failures count as status 0.
    static func post(_ base: String, url: String, key: String) -> Curl.Response {
        let body = #"{"url":"\#(url)"}"#
        return (try? Curl.request(base + "/v1/intake", json + ["-H", "Idempotency-Key: \"\(key)\"", "-d", body]))
            ?? Curl.Response(status: 0, headers: [:], body: "")
    }

    static func startReplicas(_ count: Int, uri: String) throws -> [DaemonProcess] {
        // Started at once against an empty database: the schema migration race too.
        let started = Mutex<[Result<DaemonProcess, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let result = Result { try DaemonProcess(environment: ["NAVPOLICY_INTAKE_DATABASE_URL": uri]) }
            started.withLock { $0.append(result) }
        }
        return try started.withLock { $0 }.map { try $0.get() }
    }

    @Test("two replicas behind round-robin nginx: one item per URL and per key, ids unique, every 201 readable from both")
    func twoReplicasBehindNginx() throws {
        let cluster = try PostgresCluster.shared.get()
        let uri = try cluster.createDatabase()
        let replicas = try Self.startReplicas(2, uri: uri)
        let balancer = try RoundRobinNginx(upstreamPorts: replicas.map(\.port))
        // The listening line names the store without leaking anything but the URI it was given.
        #expect(replicas[0].logLines.contains { $0.contains(#""intakeDatabase":"postgresql:"#) })

        let urls = 48
        let created = Mutex<[Int: [String]]>([:])
        let statuses = Mutex<[Int]>([])
        // Each URL is posted twice with the same key, so consecutive requests cross replicas.
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in stride(from: worker, to: urls, by: 8) {
                for _ in 0..<2 {
                    let response = Self.post(balancer.baseURL, url: "https://r.example/\(index)", key: "key-\(index)")
                    statuses.withLock { $0.append(response.status) }
                    if response.status == 201, let id = response.json?["id"] as? String {
                        created.withLock { $0[index, default: []].append(id) }
                    }
                }
            }
        }
        let seen = statuses.withLock { $0 }
        #expect(seen.allSatisfy { $0 == 201 || $0 == 409 }, "\(seen)")
        let ids = created.withLock { $0 }
        // A replay answers 201 with the same body: both answers of a URL name one id.
        for index in 0..<urls {
            let answers = ids[index] ?? []
            #expect(!answers.isEmpty && Set(answers).count == 1, "URL \(index): \(answers)")
        }
        let allIDs = Set(ids.values.compactMap(\.first))
        #expect(allIDs.count == urls, "ids must be unique across replicas: \(ids)")
        for replica in replicas {
            let listed = try #require(
                try Curl.request(replica.baseURL + "/v1/intake?limit=100").json?["items"] as? [[String: Any]])
            #expect(listed.count == urls)
            #expect(Set(listed.compactMap { $0["id"] as? String }) == allIDs)
            for id in allIDs {
                #expect(try Curl.request(replica.baseURL + "/v1/intake/\(id)").status == 200)
            }
        }
    }

    @Test("PostgreSQL restarted under load: only 201 or 503 with Retry-After, decisions keep working, every 201 is stored")
    func postgresRestartUnderLoad() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let uri = try cluster.createDatabase()
        let daemon = try Self.startReplicas(1, uri: uri)[0]
        let acknowledged = Mutex<[String: String]>([:])
        let unexpected = Mutex<[String]>([])
        let unavailable = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let decisionsDuringOutage = Mutex<[Int]>([])
        let readinessDuringOutage = Mutex<(ready: Curl.Response?, healthz: [Int])>((nil, []))
        let outage = Thread {
            Thread.sleep(forTimeInterval: 0.5)
            do {
                try cluster.stopServer()
                for _ in 0..<3 {
                    let status = (try? Curl.request(daemon.baseURL + "/v1/decide?url=https%3A%2F%2Fa.example%2F").status) ?? 0
                    decisionsDuringOutage.withLock { $0.append(status) }
                }
                let notReady = Self.waitFor(daemon.baseURL + "/readyz/intake", status: 503, seconds: 10)
                let live = (try? Curl.request(daemon.baseURL + "/healthz").status) ?? 0
                readinessDuringOutage.withLock { $0 = (notReady, [live]) }
                try cluster.start()
                Thread.sleep(forTimeInterval: 1.5)
            } catch {
                unexpected.withLock { $0.append("restart failed: \(error)") }
            }
            running.store(false, ordering: .sequentiallyConsistent)
        }
        outage.start()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            var sequence = 0
            while running.load(ordering: .sequentiallyConsistent) {
                sequence += 1
                let url = "https://load.example/\(worker)/\(sequence)"
                let response = Self.post(daemon.baseURL, url: url, key: "load-\(worker)-\(sequence)")
                switch response.status {
                case 201:
                    if let id = response.json?["id"] as? String { acknowledged.withLock { $0[id] = url } }
                case 503:
                    _ = unavailable.add(1, ordering: .relaxed)
                    let problem = response.json?["type"] as? String ?? ""
                    if response.headers["retry-after"] == nil || !problem.hasSuffix("storage-unavailable") {
                        unexpected.withLock { $0.append("503 without Retry-After or kind: \(response.headers) \(response.body)") }
                    }
                default:
                    unexpected.withLock { $0.append("\(response.status): \(response.body)") }
                }
            }
        }
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
        #expect(unavailable.load(ordering: .relaxed) > 0, "the outage should have produced 503s")
        #expect(decisionsDuringOutage.withLock { $0 } == [200, 200, 200])
        let (notReady, liveness) = readinessDuringOutage.withLock { $0 }
        #expect(notReady?.body.contains(#""fault":"unreachable""#) == true, "\(String(describing: notReady))")
        #expect(liveness == [200], "/healthz reports the process, not its database")
        // Ready again by itself once PostgreSQL is back (the probe reconnects the pool).
        #expect(Self.waitFor(daemon.baseURL + "/readyz/intake", status: 200, seconds: 15) != nil)
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        // Back: writes work again without a restart of the daemon, once the reconnect backoff
        // (at most 2 s) has passed: a bounded wait, not a timing assertion.
        var after = 0
        let deadline = Date().addingTimeInterval(15)
        while after != 201, Date() < deadline {
            after = Self.post(daemon.baseURL, url: "https://after.example/", key: "after").status
            if after != 201 { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(after == 201)
        for (id, url) in acknowledged.withLock({ $0 }) {
            let item = try Curl.request(daemon.baseURL + "/v1/intake/\(id)")
            #expect(item.status == 200 && item.json?["url"] as? String == url, "acknowledged item \(id) lost")
        }
    }

    /// Polls `url` until it answers `status` (a bounded wait); nil when it never did.
    static func waitFor(_ url: String, status: Int, seconds: TimeInterval) -> Curl.Response? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let response = try? Curl.request(url), response.status == status { return response }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    @Test("started while PostgreSQL is down: decisions work, intake 503 until the server is up, then ready by itself")
    func startWhileDatabaseDown() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let uri = try cluster.createDatabase()
        try cluster.stopServer()
        let daemon = try DaemonProcess(environment: ["NAVPOLICY_INTAKE_DATABASE_URL": uri])
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=https%3A%2F%2Fa.example%2F").status == 200)
        let refused = Self.post(daemon.baseURL, url: "https://early.example/", key: "early")
        #expect(refused.status == 503 && refused.headers["retry-after"] != nil, "\(refused.headers) \(refused.body)")
        #expect((refused.json?["type"] as? String)?.hasSuffix("storage-unavailable") == true, "\(refused.body)")
        #expect(try Curl.request(daemon.baseURL + "/v1/intake").status == 503)
        let notReady = try Curl.request(daemon.baseURL + "/readyz/intake")
        #expect(notReady.status == 503 && notReady.body.contains(#""fault":"unreachable""#), "\(notReady.body)")
        #expect(try Curl.request(daemon.baseURL + "/readyz").status == 200, "decisions are ready without the database")
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        #expect(daemon.logLines.contains { $0.contains("intake.store_unreachable") })

        try cluster.start()
        // The same process, not restarted: ready within a bounded wait, then writes commit.
        #expect(Self.waitFor(daemon.baseURL + "/readyz/intake", status: 200, seconds: 15) != nil)
        let stored = Self.post(daemon.baseURL, url: "https://early.example/", key: "early")
        #expect(stored.status == 201, "\(stored.body)")
        #expect(daemon.waitForLog { $0.contains("intake.store_connected") } != nil)
        #expect(try cluster.query(uri, "SELECT max(version) FROM navpolicyd_schema") == "1\n")
    }

    @Test("a wrong password stops serve with exit 2 and the password masked")
    func wrongPasswordExits() throws {
        let cluster = try PostgresCluster.shared.get()
        let role = "navpolicyd_serve_\(getpid())"
        try cluster.addPasswordRole(role, password: "right")
        let database = try cluster.createDatabase().split(separator: "/").last.map(String.init) ?? ""
        let uri = "postgresql://\(role):wrong-h0nk@127.0.0.1:\(cluster.port)/\(database)"
        let config = try BinaryRunner.temporaryFile(defaultConfig)
        let errorPath = NSTemporaryDirectory() + "navpolicyd-wrong-password-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = BinaryRunner.binary
        process.arguments = ["serve", "--config", config, "--listen", "127.0.0.1:0"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "NAVPOLICY_INTAKE_DATABASE_URL": uri,
            "NAVPOLICY_DATA_DIR": TestScratch.root + "/navpolicyd-data-\(UUID().uuidString)",
        ]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        // A bounded wait: a daemon that took the refusal for an outage would keep running.
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let exited = !process.isRunning
        if !exited {
            process.terminate()
            process.waitUntilExit()
        }
        let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        #expect(exited && process.terminationStatus == 2, "\(stderr)")
        #expect(stderr.contains("password authentication failed"), "\(stderr)")
        #expect(stderr.contains("\(role):***@") && !stderr.contains("wrong-h0nk"), "\(stderr)")
    }

    @Test("kill -9 of one replica under load: every acknowledged item is present and its retry replays it")
    func killOneReplica() throws {
        let cluster = try PostgresCluster.shared.get()
        let uri = try cluster.createDatabase()
        let replicas = try Self.startReplicas(2, uri: uri)
        let balancer = try RoundRobinNginx(upstreamPorts: replicas.map(\.port))
        let acknowledged = Mutex<[String: String]>([:])
        let unexpected = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 7) { worker in
            if worker == 6 {
                Thread.sleep(forTimeInterval: 0.7)
                replicas[0].signal(SIGKILL)
                return
            }
            for sequence in 0..<25 {
                let key = "kill-\(worker)-\(sequence)"
                let response = Self.post(balancer.baseURL, url: "https://kill.example/\(worker)/\(sequence)", key: key)
                switch response.status {
                case 201: if let id = response.json?["id"] as? String { acknowledged.withLock { $0[key] = id } }
                // The killed replica's connections: nginx answers 502 (it does not retry a POST).
                case 502, 503: break
                default: unexpected.withLock { $0.append("\(response.status): \(response.body)") }
                }
            }
        }
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
        let survivor = replicas[1]
        let stored = acknowledged.withLock { $0 }
        #expect(stored.count > 50)
        for (key, id) in stored {
            #expect(try Curl.request(survivor.baseURL + "/v1/intake/\(id)").status == 200, "acknowledged item \(id) lost")
            let parts = key.split(separator: "-")
            let retry = Self.post(survivor.baseURL, url: "https://kill.example/\(parts[1])/\(parts[2])", key: key)
            #expect(retry.status == 201 && retry.json?["id"] as? String == id, "retry of \(key) did not replay \(id)")
        }
    }
}

/// nginx balancing plain round robin over daemon ports, as a Kubernetes Service spreads connections.
final class RoundRobinNginx: Sendable {
    let process: Process
    let port: Int
    let prefix: String

    init(upstreamPorts: [Int]) throws {
        prefix = NSTemporaryDirectory() + "navpolicyd-rr-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let servers = upstreamPorts.map { "server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: " ")
        let config = """
            daemon off;
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                upstream replicas { \(servers) }
                server {
                    listen 127.0.0.1:\(port);
                    location / { proxy_pass http://replicas; proxy_http_version 1.1; proxy_set_header Connection ""; }
                }
            }
            """
        let configPath = prefix + "/nginx.conf"
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", prefix, "-e", prefix + "/error.log", "-c", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard waitForListener(port: port) else {
            process.terminate()
            throw DaemonError(
                "nginx did not start: \((try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? "")")
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }
}
