import Foundation
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

/// Share intake over HTTP with curl, as a share extension, a browser form or a script sends it.
@Suite("Share intake endpoints", .tags(.live, .sanitizerRelevant))
struct IntakeEndpointTests {
    static let json = ["-H", "Content-Type: application/json"]

    @Test("every content type stores its URL, with title and source")
    func contentTypes() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        let extensionItems = #"""
            {"extensionItems":[{"attributedTitle":"Ext","userInfo":{"k":"v"},"attachments":[
              {"registeredTypeIdentifiers":["public.url","public.plain-text"],
               "items":{"public.url":"https://ext.example/a","public.plain-text":"https://ignored.example/"}}]}],
             "tags":["ios"]}
            """#
        let cases: [(arguments: [String], url: String, title: String?, source: String)] = [
            (Self.json + ["-d", #"{"text":"Look at this https://json.example/a."}"#], "https://json.example/a", nil, "json"),
            (Self.json + ["-d", extensionItems], "https://ext.example/a", "Ext", "extension-items"),
            (["-d", "title=My+News&url=http%3A%2F%2Fform.example%2Fn"], "http://form.example/n", "My News", "form-urlencoded"),
            (
                ["-F", "url=", "-F", "text=Title\nhttps://multi.example/a", "-F", "title=M"], "https://multi.example/a", "M",
                "multipart-form-data"
            ),
            (
                ["-H", "Content-Type: text/uri-list", "--data-binary", "#Listed\r\nhttps://list.example/#frag\r\n"],
                "https://list.example/#frag", "Listed", "uri-list"
            ),
            (
                ["-H", "Content-Type: text/plain", "--data-binary", "see (https://plain.example/x)"], "https://plain.example/x",
                nil, "text-plain"
            ),
        ]
        for (arguments, url, title, source) in cases {
            let response = try Curl.request(intake, arguments)
            #expect(response.status == 201, "\(arguments): \(response.body)")
            let item = try #require(response.json, "\(response.body)")
            #expect(item["url"] as? String == url)
            #expect(item["title"] as? String == title)
            #expect(item["source"] as? String == source)
            #expect((item["decision"] as? [String: Any])?["decision"] as? String == "allow")
            #expect(response.headers["location"] == "/v1/intake/\(item["id"] as? String ?? "")")
        }
        let stored = try #require(try Curl.request(intake + "?limit=100").json?["items"] as? [[String: Any]])
        #expect(stored.count == cases.count)
        #expect(stored.first { $0["source"] as? String == "extension-items" }?["tags"] as? [String] == ["ios"])
        #expect(stored.first { $0["source"] as? String == "extension-items" }?["userInfo"] as? [[String: String]] == [["k": "v"]])
    }

    @Test("the issue's errors, each as problem+json with its kind and status")
    func errors() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        let bigMultipart = try BinaryRunner.temporaryFile(String(repeating: "a", count: 270_000))
        let invalidUTF8 = TestScratch.root + "/intake-\(UUID().uuidString).json"
        try Data(Array(#"{"url":"https://a/"#.utf8) + [0xFF] + Array(#""}"#.utf8)).write(to: URL(fileURLWithPath: invalidUTF8))
        let cases: [(arguments: [String], status: Int, kind: String)] = [
            (Self.json + ["-d", #"{"url":"https://a/","x":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}"#], 400, "malformed-body"),
            (Self.json + ["--data-binary", "@" + invalidUTF8], 400, "malformed-body"),
            (["-F", "url=@" + invalidUTF8], 400, "malformed-body"),
            (["-F", "text=@" + bigMultipart + ";type=text/plain"], 413, "payload-too-large"),
            (["-H", "Content-Type: application/xml", "-d", "<a/>"], 415, "unsupported-media-type"),
            (Self.json + ["-d", #"{"text":"nothing"}"#], 422, "no-url-found"),
            (Self.json + ["-d", #"{"url":"https://[::1"}"#], 422, "invalid-url"),
            (Self.json + ["-d", #"{"url":"data:text/html,hi"}"#], 422, "scheme-not-allowed"),
            (
                ["-H", "Content-Type: text/uri-list", "--data-binary", "https://a.example/\nhttps://b.example/"], 422,
                "too-many-urls"
            ),
            (
                Self.json + [
                    "-d",
                    #"{"extensionItems":[{"attachments":[{"registeredTypeIdentifiers":["public.url"],"items":{"public.text":"https://a/"}}]}]}"#,
                ],
                422, "type-identifier-mismatch"
            ),
        ]
        for (arguments, status, kind) in cases {
            let response = try Curl.request(intake, arguments)
            #expect(response.status == status, "\(kind): \(response.body)")
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:\(kind)", "\(response.body)")
        }
        let unsupported = try Curl.request(intake, ["-H", "Content-Type: application/xml", "-d", "<a/>"])
        #expect(unsupported.headers["accept-post"]?.contains("text/uri-list") == true)
        // A rejected request stores nothing.
        #expect((try Curl.request(intake).json?["items"] as? [Any])?.isEmpty == true)
        // /v1/decide keeps its 64 KiB limit while intake multipart takes up to 256 KiB.
        let decideBody = try BinaryRunner.temporaryFile(String(repeating: "a", count: 100_000))
        #expect(try Curl.request(daemon.baseURL + "/v1/decide", Self.json + ["--data-binary", "@" + decideBody]).status == 413)
        let allowed = try BinaryRunner.temporaryFile("https://big.example/ " + String(repeating: "a", count: 200_000))
        #expect(try Curl.request(intake, ["-F", "text=<" + allowed]).status == 201)
    }

    @Test("Idempotency-Key: exact replay, 422 for another request, 409 while in flight")
    func idempotency() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        let body = #"{"url":"https://idem.example/a","title":"T"}"#
        let first = try Curl.request(intake, Self.json + ["-H", "Idempotency-Key: \"key-1\"", "-d", body])
        #expect(first.status == 201)
        #expect(first.headers["idempotent-replayed"] == nil)
        // The same share re-encoded (member order) is the same request.
        let again = try Curl.request(
            intake, Self.json + ["-H", "Idempotency-Key: key-1", "-d", #"{"title":"T","url":"https://idem.example/a"}"#])
        #expect(again.status == 201)
        #expect(again.body == first.body)
        #expect(again.headers["location"] == first.headers["location"])
        #expect(again.headers["idempotent-replayed"] == "true")
        let reused = try Curl.request(
            intake, Self.json + ["-H", "Idempotency-Key: key-1", "-d", #"{"url":"https://other.example/"}"#])
        #expect(reused.status == 422)
        #expect(reused.json?["type"] as? String == "urn:navpolicyd:problem:idempotency-key-reused")
        // Same URL, new key: the existing item, marked duplicate.
        let duplicate = try Curl.request(
            intake, Self.json + ["-H", "Idempotency-Key: key-2", "-d", #"{"url":"https://IDEM.example/a#frag"}"#])
        #expect(duplicate.status == 200)
        #expect(duplicate.json?["duplicate"] as? Bool == true)
        #expect(duplicate.json?["id"] as? String == first.json?["id"] as? String)

        // Concurrent requests with one key: one stores, the others replay or get 409.
        var sawConflict = false
        for round in 0..<10 where !sawConflict {
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                let response = try? Curl.request(
                    intake,
                    Self.json + ["-H", "Idempotency-Key: race-\(round)", "-d", #"{"url":"https://race.example/\#(round)"}"#])
                statuses.withLock { $0.append(response?.status ?? 0) }
            }
            let seen = statuses.withLock { $0 }
            #expect(seen.allSatisfy { [201, 409].contains($0) }, "\(seen)")
            sawConflict = seen.contains(409)
        }
        #expect(sawConflict, "no 409 in 10 rounds of 6 concurrent requests")
        let inFlight = try Curl.request(intake + "?limit=1")
        #expect(inFlight.status == 200)
    }

    @Test("DELETE forgets the Idempotency-Keys that point at the item: a retry stores it again")
    func replayAfterDelete() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        let request = Self.json + ["-H", "Idempotency-Key: gone-1", "-d", #"{"url":"https://gone.example/a"}"#]
        let first = try Curl.request(intake, request)
        #expect(first.status == 201)
        let location = try #require(first.headers["location"])
        #expect(try Curl.request(daemon.baseURL + location, ["-X", "DELETE"]).status == 204)
        // Before the fix this replayed the stored 201 with a Location that answers 404.
        let retry = try Curl.request(intake, request)
        #expect(retry.status == 201)
        #expect(retry.headers["idempotent-replayed"] == nil)
        let newLocation = try #require(retry.headers["location"])
        #expect(newLocation != location)
        #expect(try Curl.request(daemon.baseURL + newLocation).status == 200)
        // The key now belongs to the new item, so the next retry is a replay again.
        let replay = try Curl.request(intake, request)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(replay.headers["location"] == newLocation)
    }

    @Test("reading back: cursor pages, HTML escaping, delete, metrics")
    func readingBack() throws {
        let daemon = try DaemonProcess()
        let intake = daemon.baseURL + "/v1/intake"
        for index in 1...3 {
            let title = index == 2 ? "<script>alert(1)</script>" : "t\(index)"
            let body = #"{"url":"https://page.example/\#(index)","title":"\#(title)"}"#
            #expect(try Curl.request(intake, Self.json + ["-d", body]).status == 201)
        }
        let firstPage = try Curl.request(intake + "?limit=2").json
        #expect((firstPage?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["3", "2"])
        let next = try #require(firstPage?["next"] as? String)
        let secondPage = try Curl.request(intake + "?limit=2&after=\(next)").json
        #expect((secondPage?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["1"])
        #expect(secondPage?["next"] is NSNull)
        let html = try Curl.request(intake + "/2", ["-H", "Accept: text/html,application/xhtml+xml"])
        #expect(html.headers["content-type"] == "text/html; charset=utf-8")
        #expect(html.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.body.contains("<script>"))
        #expect(try Curl.request(intake + "/2", ["-X", "DELETE"]).status == 204)
        #expect(try Curl.request(intake + "/2").status == 404)
        #expect(try Curl.request(intake + "/abc").status == 404)
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains(#"navpolicyd_intake_requests_total{result="created"} 3"#), "\(metrics)")
        #expect(metrics.contains("navpolicyd_intake_commits_total"))
    }

    @Test("an unusable intake.database stops serve with exit 2 and a message")
    func unusableDatabase() throws {
        let config = #"{"handlers":[],"intake":{"database":"/proc/navpolicyd/intake.sqlite3"}}"#
        let result = try BinaryRunner.run([
            "serve", "--config", try BinaryRunner.temporaryFile(config), "--listen", "127.0.0.1:0",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/proc/navpolicyd/intake.sqlite3"), "\(result.stderr)")
    }

    @Test("a reload that changes the intake section warns that it needs a restart")
    func intakeSectionNeedsRestart() throws {
        let daemon = try DaemonProcess(config: #"{"handlers":[],"intake":{"maxWebURLs":1}}"#)
        try Data(#"{"handlers":[],"intake":{"maxWebURLs":2}}"#.utf8).write(to: URL(fileURLWithPath: daemon.configPath))
        #expect(try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"]).status == 200)
        #expect(daemon.waitForLog { $0.contains("policy.intake_settings_changed") } != nil)
        // The running store keeps its settings: two URLs are still too many.
        let two = try Curl.request(
            daemon.baseURL + "/v1/intake", ["-H", "Content-Type: text/uri-list", "--data-binary", "https://a/\nhttps://b/"])
        #expect(two.status == 422)
    }
}
