import Foundation
import Testing

/// Issue 31's bounds against the real binary: the outside attack's regexp pattern is refused by
/// `validate`, `check` and `serve`; a dear pattern the cap accepts is decided within the
/// per-decision step budget and fails closed over it; a wildcard pattern list sharing one key
/// runs no regex at all; escapes in a pattern or a query do not dodge it (attacks F2, F3).
@Suite("URLPattern bounds, live")
struct URLPatternBoundsLiveTests {
    static let attack =
        #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/((?:a?){5000}b)"}]}}]}"#

    @Test("the attack's pattern is refused by validate (exit 1), check and serve (exit 2), with its pointer and the cap")
    func attackRefused() throws {
        let config = try BinaryRunner.temporaryFile(Self.attack)
        let validate = try BinaryRunner.run(["validate", "--config", config])
        #expect(validate.status == 1)
        let said = validate.stdout + validate.stderr
        #expect(said.contains("/handlers/0/match/urlPatterns/0/pathname"), "\(said)")
        #expect(said.contains("over the cap of 250"), "\(said)")
        let check = try BinaryRunner.run([
            "check", "--config", config, "https://a.example/" + String(repeating: "a", count: 1_000),
        ])
        #expect(check.status == 2)
        #expect((check.stdout + check.stderr).contains("over the cap of 250"))
        // Under `timeout`: a daemon that accepted the config would serve on (exit 124 here).
        let serve = try BinaryRunner.run(
            ["20", BinaryRunner.binary.path, "serve", "--config", config, "--listen", "127.0.0.1:0"],
            executable: URL(fileURLWithPath: "/usr/bin/timeout"))
        #expect(serve.status == 2)
        #expect(serve.stderr.contains("over the cap of 250"), "\(serve.stderr)")
    }

    @Test("over the step budget GET /v1/decide fails closed: a cancelling pattern matches, an allow-list does not")
    func budgetFailsClosed() throws {
        // Both patterns pass the cap. On this path the first would not match and the second
        // would, each after far more steps than one decision may take.
        let daemon = try DaemonProcess(
            config: #"""
                {"defaultDecision": "allow", "handlers": [
                  {"name": "dear-cancel", "type": "cancel", "match": {"urlPatterns": [{"hostname": "c.example", "pathname": "/((?:.*a){30}b)"}]}},
                  {"name": "dear-allow", "type": "allow", "match": {"urlPatterns": [{"hostname": "a.example", "pathname": "/((?:.*a){30}.*)"}]}},
                  {"name": "rest", "type": "cancel", "match": {"hosts": ["a.example"]}}
                ]}
                """#)
        let long = String(repeating: "a", count: 1_000)
        let cancelled = try daemon.decide("https://c.example/" + long, explain: true)
        #expect(cancelled.status == 200)
        #expect(cancelled.json?["decision"] as? String == "cancel")
        #expect(cancelled.json?["handler"] as? String == "dear-cancel")
        #expect(cancelled.json?["regexpBudgetExhausted"] as? Bool == true)
        #expect(cancelled.json?["regexpSteps"] as? Int == 50_000, "\(cancelled.json ?? [:])")
        let refused = try daemon.decide("https://a.example/" + long)
        #expect(refused.json?["decision"] as? String == "cancel")
        #expect(refused.json?["handler"] as? String == "rest", "the allow-list entry is read as not matched")
        // Within the budget both decide on the pattern itself.
        let thirty = String(repeating: "a", count: 30)
        #expect(try daemon.decide("https://c.example/" + thirty + "b").json?["handler"] as? String == "dear-cancel")
        #expect(try daemon.decide("https://c.example/aa").json?["decision"] as? String == "allow")
        #expect(try daemon.decide("https://a.example/" + thirty).json?["handler"] as? String == "dear-allow")
    }

    @Test("1,000 urlPatterns on one host with a wildcard path: right answers and not one regexp step")
    func sharedKeyRunsNoRegex() throws {
        let entries = (0..<1_000).map { #"{"hostname": "shop.example", "pathname": "/*", "search": "q=\#($0)"}"# }
        let daemon = try DaemonProcess(
            config:
                #"{"defaultDecision": "allow", "handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [\#(entries.joined(separator: ","))]}}]}"#
        )
        let miss = try daemon.decide("https://shop.example/x?q=1000", explain: true)
        #expect(miss.json?["decision"] as? String == "allow")
        #expect(miss.json?["regexpSteps"] as? Int == 0, "\(miss.json ?? [:])")
        let hit = try daemon.decide("https://shop.example/x?q=999", explain: true)
        #expect(hit.json?["handler"] as? String == "p")
        #expect(hit.json?["regexpSteps"] as? Int == 0)
    }

    @Test("F3 and F2: /%61dmin/* cancels /admin/x, and search token=* cancels ?%74oken=1")
    func escapesDoNotDodge() throws {
        let daemon = try DaemonProcess(
            config: #"""
                {"defaultDecision": "allow", "handlers": [
                  {"name": "admin", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/%61dmin/*"}]}},
                  {"name": "pay", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/pay/return", "search": "token=*"}]}}
                ]}
                """#)
        for url in ["https://a.example/admin/x", "https://a.example/%61dmin/x", "https://a.example/ADMIN/x"] {
            #expect(try daemon.decide(url).json?["handler"] as? String == "admin", "\(url)")
        }
        for url in ["https://a.example/pay/return?token=1", "https://a.example/pay/return?%74oken=1"] {
            #expect(try daemon.decide(url).json?["handler"] as? String == "pay", "\(url)")
        }
        #expect(try daemon.decide("https://a.example/pay/return?token%3D1").json?["decision"] as? String == "allow")
    }
}
