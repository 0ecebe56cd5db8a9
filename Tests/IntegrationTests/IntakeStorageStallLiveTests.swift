import Foundation
import Synchronization
import TestSelection
import Testing

/// A PostgreSQL intake server that stops answering (SIGSTOP on every server process: what a
/// hung host or a silent network partition looks like to the daemon) — issue 38 item 10.
///
/// `statement_timeout` is the server's: a frozen server never applies it. The daemon's own
/// deadlines must answer every intake request, read and readiness probe with 503 and
/// Retry-After, and intake must never hold the connection slots `/v1/decide` and `/healthz`
/// need from the same address. No timing is asserted beyond "answers at all" within curl's
/// generous bound.
@Suite("Intake with a frozen PostgreSQL server", .serialized, .tags(.live, .sanitizerRelevant))
struct IntakeStorageStallLiveTests {
    static let json = ["-H", "Content-Type: application/json"]
    /// Far above the 400 ms busy timeout (plus margin) the daemon must answer within.
    static let answerBound = ["--max-time", "10"]
    /// The connection slots one address may hold; the stall test sends as many intake requests.
    static let perAddress = 40
    static let postsPerClient = 2

    static func post(_ base: String, url: String, key: String) -> Curl.Response {
        let body = #"{"url":"\#(url)"}"#
        let arguments = json + answerBound + ["-H", "Idempotency-Key: \(key)", "-d", body]
        return (try? Curl.request(base + "/v1/intake", arguments)) ?? Curl.Response(status: 0, headers: [:], body: "")
    }

    static func expectUnavailable(_ response: Curl.Response, _ comment: Comment) {
        #expect(response.status == 503, comment)
        #expect((response.json?["type"] as? String)?.hasSuffix(":storage-unavailable") == true, comment)
        #expect(Int(response.headers["retry-after"] ?? "").map { $0 >= 1 } == true, comment)
    }

    /// Polls `path` until it answers 200, for at most `seconds`.
    static func eventually200(_ url: String, within seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var last = 0
        repeat {
            last = (try? Curl.request(url, ["--max-time", "2"]).status) ?? 0
            if last == 200 { return last }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return last
    }

    @Test(
        "frozen server: every write, read and /readyz/intake answers 503 with Retry-After; decisions and healthz keep answering; retries store each item once"
    )
    func frozenServer() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let uri = try cluster.createDatabase()
        let config = #"""
            {"server":{"connectionLimit":128,"perIPConnectionLimit":\#(Self.perAddress)},"handlers":[],
             "intake":{"busyTimeoutMilliseconds":400}}
            """#
        let daemon = try DaemonProcess(config: config, environment: ["NAVPOLICY_INTAKE_DATABASE_URL": uri])
        let base = daemon.baseURL
        let first = Self.post(base, url: "https://stall.example/first", key: "first")
        #expect(first.status == 201, "\(first.body)")
        let firstID = try #require(first.json?["id"] as? String)
        // A read now, so the pool holds an idle connection that the freeze leaves open.
        #expect(try Curl.request(base + "/v1/intake").status == 200)

        try cluster.freeze()
        var thawed = false
        defer { if !thawed { try? cluster.thaw() } }

        // As many clients as the address may hold connections, each posting a few times in a
        // row: without deadlines and a bound on waiting requests they would take every slot
        // while the server is frozen.
        let answers = Mutex<[String: Curl.Response]>([:])
        let group = DispatchGroup()
        for client in 0..<Self.perAddress {
            group.enter()
            // A thread each: the global dispatch queue runs only about as many blocking items at
            // once as there are cores, which would keep most clients from ever connecting.
            Thread.detachNewThread {
                for attempt in 0..<Self.postsPerClient {
                    let name = "\(client)-\(attempt)"
                    let response = Self.post(base, url: "https://stall.example/\(name)", key: "stall-\(name)")
                    answers.withLock { $0[name] = response }
                }
                group.leave()
            }
        }
        // Long enough for every client to have connected on a busy machine.
        Thread.sleep(forTimeInterval: 1.5)
        // Same address, while the intake clients are still posting.
        #expect(Self.eventually200(base + "/healthz", within: 5) == 200, "healthz while intake is stalled")
        #expect(
            Self.eventually200(base + "/v1/decide?url=https%3A%2F%2Fwww.example.com%2F", within: 5) == 200,
            "decide while intake is stalled")
        group.wait()
        let posted = answers.withLock { $0 }
        for (name, response) in posted.sorted(by: { $0.key < $1.key }) {
            Self.expectUnavailable(response, "POST \(name) while frozen: \(response.status) \(response.body)")
        }

        // Reads and the intake probe have the same deadline.
        Self.expectUnavailable(try Curl.request(base + "/v1/intake", Self.answerBound), "GET /v1/intake")
        Self.expectUnavailable(try Curl.request(base + "/v1/intake/\(firstID)", Self.answerBound), "GET one item")
        Self.expectUnavailable(try Curl.request(base + "/readyz/intake", Self.answerBound), "/readyz/intake")
        #expect(try Curl.request(base + "/readyz", Self.answerBound).status == 200, "decision readiness")

        try cluster.thaw()
        thawed = true
        #expect(Self.eventually200(base + "/readyz/intake", within: 15) == 200, "intake recovers without a restart")
        // Every request that got 503 retries with its key: each URL is stored exactly once
        // (a write the client gave up on may have committed; the retry replays it then).
        for name in posted.keys.sorted() {
            let retry = Self.post(base, url: "https://stall.example/\(name)", key: "stall-\(name)")
            #expect(retry.status == 201, "retry \(name): \(retry.status) \(retry.body)")
        }
        let listed = try #require(
            try Curl.request(base + "/v1/intake?limit=100").json?["items"] as? [[String: Any]])
        let urls = listed.compactMap { $0["url"] as? String }
        #expect(urls.count == posted.count + 1, "\(urls)")
        #expect(Set(urls).count == urls.count, "no URL stored twice: \(urls)")
    }
}
