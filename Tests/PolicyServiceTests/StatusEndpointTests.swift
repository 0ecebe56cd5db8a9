import Foundation
import HTTPServer
import JSONSupport
import TestSelection
import Testing

@testable import PolicyService

/// `GET /v1/status` and the status page, in-process.
@Suite("status report and page in-process", .tags(.sanitizerRelevant))
struct StatusEndpointTests {
    static let config = """
        {
          "defaultDecision": "allow",
          "handlers": [
            { "name": "logout", "type": "logout", "match": { "paths": ["/logout"] } },
            { "name": "trial", "type": "cancel", "mode": "shadow", "action": "trial-block", "match": { "paths": ["/beta"] } },
            { "name": "pay", "type": "payment-redirect", "location": "https://pay.example/?next={url}",
              "match": { "hosts": ["shop.example"], "paths": ["/checkout"] } }
          ]
        }
        """

    static let html = [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")]

    @Test("the JSON report lists the chain in order with live counters per handler and decision")
    func report() async throws {
        let harness = try ServiceHarness(config: Self.config)
        for url in ["https://a.example/logout", "https://a.example/logout", "https://a.example/beta", "https://a.example/"] {
            #expect(await harness.send("GET", "/v1/decide?url=" + url).status == 200)
        }
        let response = await harness.send("GET", "/v1/status")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let status = response.object
        let chain = status["chain"]?.arrayValue ?? []
        #expect(chain.map { $0["name"]?.stringValue } == ["logout", "trial", "pay"])
        #expect(chain.map { $0["shadow"]?.boolValue } == [false, true, false])
        #expect(chain.map { $0["type"]?.stringValue } == ["logout", "cancel", "payment-redirect"])
        #expect(chain.first?["match"]?.stringValue?.contains("/logout") == true)
        #expect(chain.last?["location"]?.stringValue == "https://pay.example/?next={url}")
        #expect(chain[1]["action"]?.stringValue == "trial-block")
        let logout = chain.first?["counts"]
        #expect(logout?["sinceStart"]?["cancel"]?.integerValue == 2)
        #expect(logout?["lastMinute"]?["cancel"]?.integerValue == 2)
        #expect(logout?["sinceStart"]?["allow"]?.integerValue == 0)
        // The shadow handler never decides; it shows what it would have decided.
        #expect(chain[1]["counts"]?["sinceStart"]?["cancel"]?.integerValue == 1)
        #expect(chain[1]["counts"]?["lastMinute"]?["cancel"]?.integerValue == 1)
        #expect(status["defaultDecision"]?["counts"]?["sinceStart"]?["allow"]?.integerValue == 2)
        #expect(status["totals"]?["lastMinute"]?["allow"]?.integerValue == 2)
        #expect(status["totals"]?["lastMinute"]?["cancel"]?.integerValue == 2)
        #expect(status["policy"]?["revision"]?.stringValue == harness.store.snapshot?.revision)
        #expect(status["policy"]?["lastReloadError"] == .null)
        #expect(status["intake"]?["state"]?.stringValue == "open")
        #expect(status["intake"]?["database"]?.stringValue?.hasSuffix("/intake.sqlite") == true)
        #expect(status["intake"]?["health"]?["status"]?.stringValue == "ok")
        #expect(status["listeners"]?.arrayValue == [])
        #expect(status["version"]?.stringValue == "test")
    }

    @Test("reload outcomes are listed newest first, failures with their errors")
    func reloads() async throws {
        let harness = try ServiceHarness()
        _ = await harness.send("POST", "/v1/policy/reload")
        try #"{"handlers": [], "bogus": 1}"#.write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        _ = await harness.send("POST", "/v1/policy/reload")
        let status = await harness.send("GET", "/v1/status").object
        let recent = status["reloads"]?["recent"]?.arrayValue ?? []
        #expect(recent.map { $0["result"]?.stringValue } == ["failed", "unchanged"])
        #expect(recent.first?["errors"]?.arrayValue?.first?.stringValue?.contains("bogus") == true)
        #expect(recent.first?["trigger"]?.stringValue == "http")
        #expect(status["policy"]?["lastReloadError"]?["errors"]?.arrayValue?.isEmpty == false)
    }

    @Test("the page escapes config text, carries a hash-only CSP, and is served only to HTML clients")
    func page() async throws {
        let harness = try ServiceHarness()
        // Config text reaches the page through the reload error (`unknown field "<script>…"`).
        try #"{"handlers": [], "<script>alert(1)</script>": 1}"#
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        _ = await harness.send("POST", "/v1/policy/reload")
        for path in ["/", "/status"] {
            let page = await harness.send("GET", path, headers: Self.html)
            #expect(page.status == 200, "\(path)")
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(!page.text.contains("<script>alert(1)"))
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.text.contains(#"<li class="link" data-handler="logout">"#))
            let csp = page.headers["Content-Security-Policy"] ?? ""
            #expect(csp.hasPrefix("default-src 'none'; script-src 'sha256-"))
            #expect(!csp.contains("unsafe-inline"))
            // The hash in the header is the hash of the script the page carries.
            #expect(page.text.contains("<script>" + StatusPageAssets.script + "</script>"))
            #expect(csp.contains(StatusPage.hash(StatusPageAssets.script)))
            #expect(csp.contains(StatusPage.hash(StatusPageAssets.style)))
        }
        // Other clients get what `/` has always answered: 404 not-found, now with a hint.
        for accept in [nil, "application/json", "*/*", "application/json, text/html"] {
            let response = await harness.send("GET", "/", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 404, "\(accept ?? "no Accept")")
            #expect(response.problemKind == "not-found")
            #expect(response.object["detail"]?.stringValue?.contains("/v1/status") == true)
        }
    }

    @Test("with an admin token the page and the report need it")
    func token() async throws {
        let harness = try ServiceHarness(adminToken: serviceTestToken)
        for (path, headers) in [("/v1/status", [(String, String)]()), ("/", Self.html), ("/status", Self.html)] {
            let missing = await harness.send("GET", path, headers: headers)
            #expect(missing.status == 401, "\(path)")
            #expect(missing.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd""#)
            let wrong = await harness.send("GET", path, headers: headers + [("Authorization", "Bearer wrong-token-0123456789")])
            #expect(wrong.status == 401, "\(path)")
            let authorized = await harness.send(
                "GET", path, headers: headers + [("Authorization", "Bearer " + serviceTestToken)])
            #expect(authorized.status == 200, "\(path)")
        }
    }

    @Test("lastReloadError clears once the file holds the running revision again")
    func staleReloadError() async throws {
        let harness = try ServiceHarness()
        let aside = harness.configPath + ".aside"
        try FileManager.default.moveItem(atPath: harness.configPath, toPath: aside)
        #expect(await harness.send("POST", "/v1/policy/reload").status == 422)
        #expect(await harness.send("GET", "/v1/policy").object["lastReloadError"]?.objectValue != nil)
        try FileManager.default.moveItem(atPath: aside, toPath: harness.configPath)
        // Re-checked at most once a second: a bounded wait, not a timing assertion.
        var cleared = false
        for _ in 0..<50 where !cleared {
            cleared = await harness.send("GET", "/v1/policy").object["lastReloadError"] == .null
            if !cleared { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(cleared)
        #expect(await harness.send("GET", "/v1/status").object["policy"]?["lastReloadError"] == .null)
    }

    @Test("a different file on disk keeps the error")
    func reloadErrorStaysForOtherBytes() async throws {
        let harness = try ServiceHarness()
        try "{ not json".write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        #expect(await harness.send("POST", "/v1/policy/reload").status == 422)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(await harness.send("GET", "/v1/policy").object["lastReloadError"]?.objectValue != nil)
    }
}

@Suite("one-minute decision window")
struct RecentCountsTests {
    @Test("counts an event for 60 seconds, then drops it; a reused slot starts from zero")
    func window() {
        var counter = DecisionCounter()
        counter.record(second: 1000)
        counter.record(second: 1000)
        counter.record(second: 1030)
        #expect(counter.total == 3)
        #expect(counter.recent.sum(upTo: 1000) == 2)
        #expect(counter.recent.sum(upTo: 1059) == 3)
        #expect(counter.recent.sum(upTo: 1060) == 1)
        #expect(counter.recent.sum(upTo: 1090) == 0)
        counter.record(second: 1060)
        #expect(counter.recent.sum(upTo: 1060) == 2)
        #expect(counter.recent.sum(upTo: 1089) == 2)
        #expect(counter.total == 4)
    }
}
