import Foundation
import NavigationPolicy
import NavigationPolicyClient
import TestScratchSupport
import Testing

/// Issue 26 ("Security, round 3"), items 3, 6, 11, 13 and 15, from outside: the shipped nginx
/// config against foreign and malformed Hosts, the decision log's byte budget and batch
/// allowance, the bundle client's `max-age` cap, intake inputs with two meanings, and the
/// intake page's framing headers.
@Suite("Edge hardening, live", .serialized)
struct EdgeHardeningLiveTests {
    // MARK: - Item 3: nginx server_name allow-list

    /// A rule scoped to the app's host: decided on any other host it would not apply.
    static let hostScopedPolicy = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"hosts": ["app.example.com"], "paths": ["/logout"]}}
        ]}
        """

    static func rawResponse(port: Int, _ head: String) throws -> Curl.Response {
        let connection = try RawConnection(port: port)
        connection.send(head)
        return connection.receiveResponse()
    }

    @Test("nginx: only the app's names reach it; foreign and malformed Hosts are refused before any decision")
    func nginxHostAllowList() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: Self.hostScopedPolicy)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)

        // Spellings nginx reduces to the listed name (lower case, no port, no trailing dot):
        // the app and the policy both see `app.example.com`, so the host rule applies.
        for host in ["app.example.com", "APP.example.COM", "app.example.com:\(nginx.port)", "app.example.com."] {
            let cancelled = try Self.rawResponse(
                port: nginx.port, "GET /logout HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(cancelled.status == 403, "\(host) got \(cancelled.status)")
            #expect(cancelled.headers["x-navigation-handler"] == "logout", "\(host)")
            let allowed = try Self.rawResponse(
                port: nginx.port, "GET /home?accepted=\(host.count) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(allowed.status == 200, "\(host) got \(allowed.status)")
        }

        // Everything else ends at the default_server (421) or at nginx's own Host checks (400).
        let refused: [(String, String)] = [
            ("foreign", "GET /logout?case=1 HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n"),
            ("trailing semicolon", "GET /logout?case=2 HTTP/1.1\r\nHost: app.example.com;\r\nConnection: close\r\n\r\n"),
            ("name as prefix", "GET /logout?case=3 HTTP/1.1\r\nHost: app.example.com.evil.test\r\nConnection: close\r\n\r\n"),
            ("empty", "GET /logout?case=4 HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n"),
            ("none (HTTP/1.0)", "GET /logout?case=5 HTTP/1.0\r\n\r\n"),
            ("two Hosts", "GET /logout?case=6 HTTP/1.1\r\nHost: app.example.com\r\nHost: evil.test\r\nConnection: close\r\n\r\n"),
            ("port not digits", "GET /logout?case=7 HTTP/1.1\r\nHost: app.example.com:evil\r\nConnection: close\r\n\r\n"),
            ("two ports", "GET /logout?case=8 HTTP/1.1\r\nHost: app.example.com:80:80\r\nConnection: close\r\n\r\n"),
            ("userinfo", "GET /logout?case=9 HTTP/1.1\r\nHost: app.example.com@evil.test\r\nConnection: close\r\n\r\n"),
            (
                "absolute-form names another host",
                "GET http://evil.test/logout?case=10 HTTP/1.1\r\nHost: app.example.com\r\nConnection: close\r\n\r\n"
            ),
            ("address of the machine", "GET /logout?case=11 HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n"),
        ]
        for (name, head) in refused {
            let response = try Self.rawResponse(port: nginx.port, head)
            #expect(response.status == 421 || response.status == 400, "\(name) got \(response.status)")
        }
        #expect(!origin.saw("case="), "a refused Host reached the app: \(origin.requests)")
        #expect(!origin.saw("/logout"))
    }

    // MARK: - Item 6: decision-log budget

    static func logPath() -> String { TestScratch.root + "/decisions-\(UUID().uuidString).ndjson" }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    static func droppedLines(_ daemon: DaemonProcess) throws -> Int {
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("navpolicyd_decision_log_dropped_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// Waits until the writer thread has written what it will (the size stops changing).
    static func settledSize(_ path: String) -> Int {
        var last = -2
        for _ in 0..<40 {
            let size = fileSize(path)
            if size == last { return size }
            last = size
            Thread.sleep(forTimeInterval: 0.1)
        }
        return last
    }

    @Test("decisionLog.maxBytes: the file stops at its budget, every refused line is counted, a rotation starts afresh")
    func decisionLogBudget() throws {
        let path = Self.logPath()
        let budget = 20_000
        let daemon = try DaemonProcess(
            config: #"{"defaultDecision": "allow", "handlers": [], "decisionLog": {"maxBytes": \#(budget)}}"#,
            arguments: ["--decision-log", path])
        let decisions = 80
        for index in 0..<decisions {
            let response = try Curl.request(daemon.baseURL + "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fpage\(index)")
            #expect(response.status == 200)
        }
        let size = Self.settledSize(path)
        #expect(size > 0 && size <= budget, "file is \(size) bytes, budget \(budget)")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }, "whole lines only")
        // Every decision is either in the file or counted: none vanishes unaccounted.
        #expect(try Self.droppedLines(daemon) == decisions - lines.count, "\(lines.count) lines written")
        #expect(lines.count < decisions)
        #expect(daemon.waitForLog { $0.contains(#""event":"decision_log.full""#) } != nil)

        // Rotation: the new file has a budget of its own.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        daemon.signal(SIGUSR1)
        #expect(daemon.waitForLog { $0.contains(#""event":"decision_log.reopened""#) } != nil)
        #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fafter").status == 200)
        let rotated = Self.settledSize(path)
        #expect(rotated > 0 && rotated <= budget, "new file is \(rotated) bytes")
        #expect(Self.fileSize(path + ".1") == size, "the rotated file did not grow")
    }

    @Test("a batch grows the decision log by no more than its body; an over-long line is cut, marked and bounded")
    func batchAndLineBounds() throws {
        let path = Self.logPath()
        let daemon = try DaemonProcess(arguments: ["--decision-log", path])
        // The attack of the report: many tiny entries, each worth a ~380-byte line.
        let body = #"{"requests":["# + Array(repeating: #"{"url":"a:"}"#, count: 1000).joined(separator: ",") + "]}"
        let bodyFile = try BinaryRunner.temporaryFile(body)
        let before = Self.settledSize(path)
        let response = try Curl.request(
            daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile])
        #expect(response.status == 200)
        #expect((response.json?["decisions"] as? [Any])?.count == 1000, "the client still gets every decision")
        let grown = Self.settledSize(path) - max(before, 0)
        #expect(grown > 0 && grown <= body.utf8.count, "log grew \(grown) bytes for a \(body.utf8.count)-byte body")
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
        #expect(try Self.droppedLines(daemon) == 1000 - written)

        // A 30 KB URL (the longest is 32 KiB): its line would be over 60 KB; it is written cut,
        // marked, within 16 KiB.
        let long = "https://app.example.com/" + String(repeating: "x", count: 30_000)
        let single = try BinaryRunner.temporaryFile(#"{"url":"\#(long)"}"#)
        #expect(
            try Curl.request(
                daemon.baseURL + "/v1/decide", ["-H", "Content-Type: application/json", "--data-binary", "@" + single]
            ).status == 200)
        _ = Self.settledSize(path)
        let last = try #require(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").last)
        #expect(last.contains(#""truncated":true"#))
        #expect(last.utf8.count <= 16_384, "line is \(last.utf8.count) bytes")
    }

    // MARK: - Item 11: the bundle client caps max-age

    @Test("bundle client: a max-age past one day, on a 200 or an injected 304, is kept as one day")
    func clientCapsMaxAge() async throws {
        let daemon = try DaemonProcess(
            config: #"{"defaultDecision":"allow","handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}]}"#)
        let served = try Curl.request(daemon.baseURL + "/v1/policy/bundle")
        #expect(served.status == 200)
        let origin = try BundleOrigin(
            body: try BinaryRunner.temporaryFile(served.body), signature: nil, etag: nil,
            extraArguments: ["--cache-control", "max-age=999999999", "--not-modified-after", "1"])
        let client = NavigationPolicyClient(
            configuration: .init(bundleURL: try PolicyClientLiveTests.bundleURL(origin.baseURL), verifier: nil))
        let first = await client.refresh()
        guard case .updated = first else {
            Issue.record("first refresh: \(first)")
            return
        }
        #expect(client.maxAge == .seconds(86_400))
        let second = await client.refresh()
        guard case .notModified = second else {
            Issue.record("second refresh: \(second)")
            return
        }
        #expect(client.maxAge == .seconds(86_400))
    }

    // MARK: - Item 13: one meaning per intake input

    @Test("intake: repeated or signed list parameters and repeated media-type and disposition parameters are 400")
    func intakeOneMeaning() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        #expect(try Curl.request(intake + "?limit=2&after=5").status == 200)
        for query in [
            "limit=1&limit=2", "after=1&after=2", "limit=%2B2", "limit=+2", "after=%2B1", "limit=-0", "limit=2&limit=2",
        ] {
            let response = try Curl.request(intake + "?" + query)
            #expect(response.status == 400, "\(query) got \(response.status)")
            #expect(response.headers["content-type"] == "application/problem+json", "\(query)")
        }

        let part = { (disposition: String) in
            "--b\r\nContent-Disposition: form-data; \(disposition)\r\n\r\nhttps://share.example/one-meaning\r\n--b--\r\n"
        }
        let bodies: [(String, String, String)] = [
            ("two names", "multipart/form-data; boundary=b", part(#"name="url"; name="text""#)),
            ("two names, one spelled in capitals", "multipart/form-data; boundary=b", part(#"name="url"; NAME="title""#)),
            ("two boundaries", "multipart/form-data; boundary=b; boundary=c", part(#"name="url""#)),
            // The outside attack's input: RFC 6266 readers take name* (title), others name (url).
            ("name* beside name", "multipart/form-data; boundary=b", part(#"name*=utf-8''title; name="url""#)),
            ("name beside name*", "multipart/form-data; boundary=b", part(#"name="url"; name*=utf-8''title"#)),
            ("name* alone", "multipart/form-data; boundary=b", part(#"name*=utf-8''url"#)),
            ("boundary* beside boundary", "multipart/form-data; boundary=b; boundary*=utf-8''c", part(#"name="url""#)),
            // The second outside attack's: an RFC 2231 reader sees iso-8859-1 here.
            ("charset*", "multipart/form-data; boundary=b; charset*=UTF-8''iso-8859-1", part(#"name="url""#)),
            (
                "part charset*", "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: form-data; name=\"url\"\r\nContent-Type: text/plain; charset*=UTF-8''latin1\r\n\r\n"
                    + "https://share.example/one-meaning\r\n--b--\r\n"
            ),
            (
                "two dispositions", "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: form-data; name=\"url\"\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n"
                    + "https://share.example/one-meaning\r\n--b--\r\n"
            ),
            ("two charsets", "application/json; charset=utf-8; charset=latin1", #"{"url":"https://share.example/one-meaning"}"#),
            ("two charsets, text", "text/plain; charset=utf-8; charset=utf-16", "https://share.example/one-meaning"),
        ]
        for (name, contentType, body) in bodies {
            let file = try BinaryRunner.temporaryFile(body)
            let response = try Curl.request(intake, ["-H", "Content-Type: \(contentType)", "--data-binary", "@" + file])
            #expect(response.status == 400, "\(name) got \(response.status): \(response.body)")
            #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:malformed-body", "\(name)")
        }
        let stored = try #require(try Curl.request(intake).json?["items"] as? [Any])
        #expect(stored.isEmpty, "nothing with two meanings was stored")
        // The same inputs said once are accepted.
        let file = try BinaryRunner.temporaryFile(part(#"name="url""#))
        #expect(
            try Curl.request(intake, ["-H", "Content-Type: multipart/form-data; boundary=b", "--data-binary", "@" + file])
                .status == 201)
    }

    // MARK: - Item 15: the intake page cannot be framed or sniffed

    @Test("intake item page and status page: frame-ancestors 'none', X-Frame-Options DENY, nosniff")
    func pagesRefuseFraming() throws {
        let daemon = try DaemonProcess()
        let created = try Curl.request(
            daemon.baseURL + "/v1/intake",
            ["-H", "Content-Type: application/json", "-d", #"{"url":"https://share.example/page"}"#])
        #expect(created.status == 201)
        let location = try #require(created.headers["location"])
        let page = try Curl.request(daemon.baseURL + location, ["-H", "Accept: text/html"])
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(page.headers["x-frame-options"] == "DENY")
        #expect(page.headers["x-content-type-options"] == "nosniff")

        let status = try Curl.request(daemon.baseURL + "/status", ["-H", "Accept: text/html"])
        #expect(status.status == 200)
        #expect(status.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(status.headers["x-frame-options"] == "DENY")
        #expect(status.headers["x-content-type-options"] == "nosniff")
    }
}
