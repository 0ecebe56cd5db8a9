import Foundation
import TestSelection
import Testing

/// Issue 32 on the built binary: `navpolicyd analyze` (reachability, `--against`, `--can-reach`),
/// `validate`'s unreachable warnings from the analysis, and `POST /v1/policy/analyze`. Every
/// witness and counterexample printed is decided again here with `navpolicyd check`, as a
/// user would.
@Suite("policy analysis, live", .tags(.live, .volume))
struct PolicyAnalysisLiveTests {
    /// `get` and `other` together cover `late` (neither alone does); `internal` covers `ten`.
    static let chain = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}},
          {"name": "ten", "type": "allow", "match": {"hosts": ["10.0.0.0/8"]}},
          {"name": "get", "type": "cancel", "action": "read-only", "match": {"methods": ["GET"], "hosts": ["*.example.com"]}},
          {"name": "other", "type": "allow", "match": {"methods": ["POST", "PUT"], "hosts": ["*.example.com"]}},
          {"name": "late", "type": "cancel", "match": {"methods": ["GET", "POST"], "hosts": ["api.example.com"]}},
          {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.test"]}}
        ]}
        """

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    /// `navpolicyd check` on a request the analysis printed: the decision object.
    static func check(_ config: String, _ request: [String: Any]) throws -> [String: Any] {
        let result = try BinaryRunner.run([
            "check", "--config", config, "--method", request["method"] as? String ?? "",
            "--navigation-type", request["navigationType"] as? String ?? "", "--target-frame",
            request["targetFrame"] as? String ?? "", request["url"] as? String ?? "",
        ])
        return try json(result.stdout)
    }

    @Test("analyze: joint covers are found with every member; witnesses reach their handler under check")
    func reachability() throws {
        let config = try BinaryRunner.temporaryFile(Self.chain)
        let result = try BinaryRunner.run(["analyze", "--config", config, "--format", "json"])
        #expect(result.status == 1, "an unreachable handler exits 1: \(result.stderr)")
        let handlers = try #require(try Self.json(result.stdout)["handlers"] as? [[String: Any]])
        #expect(handlers.map { $0["name"] as? String } == ["internal", "ten", "get", "other", "late", "pay"])
        #expect(handlers.map { $0["reachable"] as? Bool } == [true, false, true, true, false, true])
        #expect(handlers[1]["shadowedBy"] as? [String] == ["internal"])
        #expect(Set(handlers[4]["shadowedBy"] as? [String] ?? []) == ["get", "other"])
        for handler in handlers where handler["reachable"] as? Bool == true {
            let witness = try #require(handler["witness"] as? [String: Any])
            let decision = try Self.check(config, witness)
            #expect(decision["handler"] as? String == handler["name"] as? String, "\(witness) → \(decision)")
        }
        let text = try BinaryRunner.run(["analyze", "--config", config])
        #expect(text.stdout.contains(#"late: unreachable, shadowed by "get" + "other""#), "\(text.stdout)")
    }

    @Test("analyze --against: counterexamples really decide differently; a reorder of disjoint handlers is equivalent")
    func equivalence() throws {
        let config = try BinaryRunner.temporaryFile(Self.chain)
        // `other` moved before `get` changes nothing (disjoint methods); `ten` moved first does.
        let reordered = try BinaryRunner.temporaryFile(
            Self.chain.replacing(
                #"{"name": "get", "type": "cancel", "action": "read-only", "match": {"methods": ["GET"], "hosts": ["*.example.com"]}},"#
                    + "\n",
                with: ""
            ).replacing(
                #"{"name": "late""#,
                with:
                    #"{"name": "get", "type": "cancel", "action": "read-only", "match": {"methods": ["GET"], "hosts": ["*.example.com"]}},"#
                    + "\n" + #"{"name": "late""#))
        let same = try BinaryRunner.run(["analyze", "--config", config, "--against", reordered, "--format", "json"])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(try Self.json(same.stdout)["equivalent"] as? Bool == true)

        let tenFirst = try BinaryRunner.temporaryFile(
            Self.chain.replacing(#"{"name": "ten", "type": "allow""#, with: #"{"name": "ten", "type": "about""#))
        let different = try BinaryRunner.run(["analyze", "--config", config, "--against", tenFirst, "--format", "json"])
        #expect(different.status == 0, "ten is unreachable in both: changing it changes nothing")

        let widened = try BinaryRunner.temporaryFile(
            Self.chain.replacing(#""methods": ["GET"], "hosts": ["*.example.com"]"#, with: #""hosts": ["*.example.com"]"#))
        let changed = try BinaryRunner.run(["analyze", "--config", config, "--against", widened, "--format", "json"])
        #expect(changed.status == 1, "\(changed.stdout)\(changed.stderr)")
        let report = try Self.json(changed.stdout)
        #expect(report["equivalent"] as? Bool == false)
        let examples = try #require(report["counterexamples"] as? [[String: Any]])
        #expect(!examples.isEmpty)
        for example in examples {
            let first = try Self.check(config, example)
            let second = try Self.check(widened, example)
            #expect(
                first["decision"] as? String != second["decision"] as? String
                    || first["action"] as? String != second["action"] as? String)
            #expect((example["config"] as? [String: Any])?["handler"] as? String == first["handler"] as? String)
            #expect((example["against"] as? [String: Any])?["handler"] as? String == second["handler"] as? String)
        }
        // Renaming a handler is equivalent, unless handler names are compared.
        let renamed = try BinaryRunner.temporaryFile(Self.chain.replacing(#""name": "pay""#, with: #""name": "checkout""#))
        #expect(try BinaryRunner.run(["analyze", "--config", config, "--against", renamed]).status == 0)
        let named = try BinaryRunner.run(["analyze", "--config", config, "--against", renamed, "--compare", "handler"])
        #expect(named.status == 1, "\(named.stdout)")
    }

    @Test("analyze --can-reach: nothing on @internal is allowed (proof, exit 0); pay.test leaves the web view (witness, exit 1)")
    func queries() throws {
        let config = try BinaryRunner.temporaryFile(Self.chain)
        let none = try BinaryRunner.run(["analyze", "--config", config, "--can-reach", "allow", "--host", "@internal"])
        #expect(none.status == 0, "\(none.stdout)\(none.stderr)")
        #expect(none.stdout.contains("unreachable: no request in the scope reaches allow"))
        let stays = try BinaryRunner.run([
            "analyze", "--config", config, "--can-reach", "allow", "--host", "*.pay.test", "--format", "json",
        ])
        #expect(stays.status == 1)
        let witness = try #require(try Self.json(stays.stdout)["witness"] as? [String: Any])
        #expect((witness["url"] as? String)?.contains(".pay.test") == true)
        #expect(try Self.check(config, witness)["decision"] as? String == "allow")
        let handler = try BinaryRunner.run([
            "analyze", "--config", config, "--can-reach", "late", "--match", #"{"methods": ["PUT"]}"#,
        ])
        #expect(handler.status == 0, "\(handler.stdout)")
        let bad = try BinaryRunner.run(["analyze", "--config", config, "--can-reach", "allow", "--host", "*."])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("/match/hosts/0"), "\(bad.stderr)")
    }

    @Test("validate: a joint cover warns with every member; the documented shadow rollout does not")
    func validateWarnings() throws {
        let config = try BinaryRunner.temporaryFile(Self.chain)
        let result = try BinaryRunner.run(["validate", "--config", config, "--strict"])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                #"/handlers/4: handler "late" can never decide: the earlier handlers "get", "other" together match every request it matches"#
            ), "\(result.stdout)")
        let shadow = try BinaryRunner.temporaryFile(
            """
            {"defaultDecision": "allow", "handlers": [
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}},
              {"name": "about", "type": "about", "match": {"paths": ["/about"]}},
              {"name": "payment", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]},
               "location": "https://checkout.example.com/open?target={url}"},
              {"name": "admin", "type": "cancel", "mode": "shadow", "match": {"pathPatterns": ["/admin/*"]}},
              {"name": "admin-enforced", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}
            ]}
            """)
        let rollout = try BinaryRunner.run(["validate", "--config", shadow, "--strict"])
        #expect(rollout.status == 0, "\(rollout.stdout)")
    }

    @Test("POST /v1/policy/analyze answers what the CLI prints; invalid bodies are problems")
    func endpoint() throws {
        let daemon = try DaemonProcess()
        let url = daemon.baseURL + "/v1/policy/analyze"
        let json = ["-H", "Content-Type: application/json", "-d"]
        let answer = try Curl.request(url, json + [#"{"config": \#(Self.chain)}"#])
        #expect(answer.status == 200, "\(answer.body)")
        let handlers = try #require(answer.json?["handlers"] as? [[String: Any]])
        #expect(handlers.map { $0["reachable"] as? Bool } == [true, false, true, true, false, true])
        let compared = try Curl.request(url, json + [#"{"config": \#(Self.chain), "against": {"handlers": []}}"#])
        #expect(compared.status == 200)
        #expect(compared.json?["equivalent"] as? Bool == false)
        let counterexamples = compared.json?["counterexamples"] as? [Any]
        #expect(counterexamples?.isEmpty == false)
        let query = try Curl.request(
            url, json + [#"{"config": \#(Self.chain), "canReach": "allow", "match": {"hosts": ["@internal"]}}"#])
        #expect(query.json?["reachable"] as? Bool == false, "\(query.body)")
        let invalid = try Curl.request(url, json + [#"{"config": {"handlers": [{"type": "nope"}]}}"#])
        #expect(invalid.status == 422)
        #expect(invalid.headers["content-type"]?.hasPrefix("application/problem+json") == true)
        #expect(invalid.body.contains("/config/handlers/0"), "\(invalid.body)")
        let unknown = try Curl.request(url, json + [#"{"config": {}, "extra": 1}"#])
        #expect(unknown.status == 400)
    }

    /// A long chain like `bench/analysis.sh`'s: partner hosts to allow and app routes to
    /// cancel, two of each in turn, then the joint cover of ``chain`` (`get` + `other` over `late`).
    static func longChain(_ count: Int) -> String {
        let generated = (0..<count).map { index in
            index % 4 < 2
                ? #"{"name": "partner\#(index)", "type": "allow", "match": {"hosts": ["partner\#(index).example"]}}"#
                : #"{"name": "route\#(index)", "type": "cancel", "match": {"pathPrefixes": ["/route\#(index)"]}}"#
        }
        // ``chain``'s own lines, each ending in "," there.
        let cover = Self.chain.split(separator: "\n").filter { line in
            ["get", "other", "late"].contains { line.contains(#"{"name": "\#($0)""#) }
        }.map { String($0.trimmingCharacters(in: .whitespaces).dropLast()) }
        return #"{"defaultDecision": "allow", "handlers": [\#((generated + cover).joined(separator: ",\n"))]}"#
    }

    @Test("validate on 10,000 handlers: the joint cover at the end is found within validate's step bound")
    func longChainValidate() throws {
        // Before: every route handler (no hosts) was searched against every earlier partner
        // host, about n²/2 = 50,000,000 steps; validate's analysis stops at 20,000,000, so
        // `late` was unknown and only the pairwise check ran, which finds no joint cover.
        let config = try BinaryRunner.temporaryFile(Self.longChain(10_000))
        let result = try BinaryRunner.run(["validate", "--config", config, "--strict"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                #"/handlers/10002: handler "late" can never decide: the earlier handlers "get", "other" together match every request it matches"#
            ), "\(result.stdout.prefix(2_000))")
        #expect(result.stdout.components(separatedBy: "can never decide").count == 2, "only late: \(result.stdout.suffix(2_000))")
    }

    @Test("POST /v1/policy/analyze on 1,000 handlers: a reorder of disjoint handlers is proven equivalent")
    func longChainEquivalence() throws {
        let daemon = try DaemonProcess()
        let url = daemon.baseURL + "/v1/policy/analyze"
        let config = Self.longChain(1_000)
        // route502 and route503 share no request: swapping them changes nothing.
        let route502 = #"{"name": "route502", "type": "cancel", "match": {"pathPrefixes": ["/route502"]}}"#
        let route503 = #"{"name": "route503", "type": "cancel", "match": {"pathPrefixes": ["/route503"]}}"#
        let swapped = config.replacing(route502 + ",\n" + route503, with: route503 + ",\n" + route502)
        #expect(swapped != config)
        // Bodies from files: one argument may not exceed 128 KiB.
        func post(_ against: String) throws -> Curl.Response {
            let body = try BinaryRunner.temporaryFile(#"{"config": \#(config), "against": \#(against)}"#)
            return try Curl.request(url, ["-H", "Content-Type: application/json", "--data-binary", "@" + body])
        }
        let answer = try post(swapped)
        #expect(answer.status == 200, "\(answer.body.prefix(500))")
        #expect(answer.json?["equivalent"] as? Bool == true, "\(answer.body.prefix(1_000))")
        // Moved before partner501, route502 takes partner501.example/route502 from it: a real difference.
        let partner501 = #"{"name": "partner501", "type": "allow", "match": {"hosts": ["partner501.example"]}}"#
        let overlapping = config.replacing(partner501 + ",\n" + route502, with: route502 + ",\n" + partner501)
        #expect(overlapping != config)
        let differs = try post(overlapping)
        #expect(differs.json?["equivalent"] as? Bool == false, "\(differs.body.prefix(1_000))")
        let example = try #require((differs.json?["counterexamples"] as? [[String: Any]])?.first)
        #expect((example["url"] as? String)?.hasPrefix("https://partner501.example/route502") == true, "\(example)")
    }

    @Test("analyze: handlers filed under urlPatterns are reached by a witness made from the pattern")
    func urlPatternWitnesses() throws {
        // Before: a witness came from the regions only, which do not model patterns, so every
        // such handler was "unknown" (exit 3).
        let patterns = (0..<30).map { index in
            switch index % 3 {
            case 0: #""https://partner\#(index).example/*""#
            case 1: #""https://*.blocked\#(index).example/*""#
            default: #"{"pathname": "/section\#(index)/:page", "search": "*"}"#
            }
        }
        let handlers = patterns.enumerated().map { index, pattern in
            #"{"name": "p\#(index)", "type": "cancel", "match": {"urlPatterns": [\#(pattern)]}}"#
        }
        let config = try BinaryRunner.temporaryFile(
            #"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ",\n"))]}"#)
        let result = try BinaryRunner.run(["analyze", "--config", config, "--format", "json"])
        #expect(result.status == 0, "\(result.stdout.prefix(1_000))\(result.stderr)")
        let report = try #require(try Self.json(result.stdout)["handlers"] as? [[String: Any]])
        #expect(report.count == 30)
        for handler in report {
            #expect(handler["reachable"] as? Bool == true, "\(handler)")
            let witness = try #require(handler["witness"] as? [String: Any])
            #expect(try Self.check(config, witness)["handler"] as? String == handler["name"] as? String, "\(witness)")
        }
    }
}
