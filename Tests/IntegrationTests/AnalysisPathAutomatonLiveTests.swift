import Foundation
import TestSelection
import Testing

/// Issue 32, exact path regions, on the built binary: answers that rest on `pathPatterns` with
/// `*` inside or `?`, or on case-sensitive next to case-insensitive path conditions, used to be
/// "unknown" (exit 2 with a reason). They are now exact, and every witness and counterexample
/// printed decides as claimed under `navpolicyd check`.
@Suite("analysis path automaton, live", .tags(.live, .volume))
struct AnalysisPathAutomatonLiveTests {
    /// `general` covers `covered` (`/a/*/b` holds every `/a/x/b`); `Admin` (case-sensitive
    /// `/Admin`) is covered by the case-insensitive `admin-any` (`/admin/*`, which matches `/Admin`
    /// folded); `upper` (`/ADMIN*`, case-sensitive) is not (`/ADMINx` is outside `/admin/*`).
    static let chain = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "general", "type": "cancel", "match": {"pathPatterns": ["/a/*/b", "/x?z"]}},
          {"name": "covered", "type": "cancel", "action": "late", "match": {"paths": ["/a/q/b", "/xyz"]}},
          {"name": "admin-any", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}},
          {"name": "Admin", "type": "allow", "match": {"paths": ["/Admin"], "caseSensitive": true}},
          {"name": "upper", "type": "about", "match": {"pathPatterns": ["/ADMIN*"], "caseSensitive": true}}
        ]}
        """

    @Test("analyze: a general pattern's and a case-insensitive pattern's covers are proven, with witnesses")
    func reachability() throws {
        let config = try BinaryRunner.temporaryFile(Self.chain)
        let result = try BinaryRunner.run(["analyze", "--config", config, "--format", "json"])
        #expect(result.status == 1, "an unreachable handler exits 1 (was 3, unknown): \(result.stdout)\(result.stderr)")
        let handlers = try #require(try PolicyAnalysisLiveTests.json(result.stdout)["handlers"] as? [[String: Any]])
        #expect(handlers.map { $0["reachable"] as? Bool } == [true, false, true, false, true], "\(result.stdout)")
        #expect(handlers[1]["shadowedBy"] as? [String] == ["general"])
        #expect(handlers[3]["shadowedBy"] as? [String] == ["admin-any"])
        for handler in handlers where handler["reachable"] as? Bool == true {
            let witness = try #require(handler["witness"] as? [String: Any])
            let decision = try PolicyAnalysisLiveTests.check(config, witness)
            #expect(decision["handler"] as? String == handler["name"] as? String, "\(witness) → \(decision)")
        }
        // validate's unreachable warnings come from the same analysis: both covers are warned.
        let validated = try BinaryRunner.run(["validate", "--config", config, "--strict"])
        #expect(validated.status == 1)
        #expect(validated.stdout.contains(#"/handlers/1: handler "covered" can never decide"#), "\(validated.stdout)")
        #expect(validated.stdout.contains(#"/handlers/3: handler "Admin" can never decide"#), "\(validated.stdout)")
        #expect(!validated.stdout.contains(#"handler "upper" can never"#), "\(validated.stdout)")
    }

    @Test("analyze --against: a rewrite of /a/* is proven equivalent; dropping case folding is not")
    func equivalence() throws {
        let original = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"]}}]}"#)
        let split = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "deep", "type": "cancel", "match": {"pathPatterns": ["/a/*/*"]}}, "#
                + #"{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"]}}]}"#)
        let same = try BinaryRunner.run(["analyze", "--config", original, "--against", split, "--format", "json"])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(try PolicyAnalysisLiveTests.json(same.stdout)["equivalent"] as? Bool == true)

        let sensitive = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"], "caseSensitive": true}}]}"#)
        let changed = try BinaryRunner.run(["analyze", "--config", original, "--against", sensitive, "--format", "json"])
        #expect(changed.status == 1, "\(changed.stdout)\(changed.stderr)")
        let answer = try PolicyAnalysisLiveTests.json(changed.stdout)
        let examples = try #require(answer["counterexamples"] as? [[String: Any]])
        #expect(!examples.isEmpty)
        for example in examples {
            let first = try PolicyAnalysisLiveTests.check(original, example)
            let second = try PolicyAnalysisLiveTests.check(sensitive, example)
            #expect(
                first["decision"] as? String != second["decision"] as? String
                    || first["action"] as? String != second["action"] as? String, "\(example)")
        }
    }

    @Test("POST /v1/policy/analyze: a query over a general pattern answers an exact none")
    func endpointQuery() throws {
        let daemon = try DaemonProcess()
        let url = daemon.baseURL + "/v1/policy/analyze"
        let json = ["-H", "Content-Type: application/json", "-d"]
        let config = #"{"handlers": [{"name": "pay", "type": "cancel", "match": {"pathPatterns": ["/pay/*/card*"]}}]}"#
        let none = try Curl.request(
            url, json + [#"{"config": \#(config), "canReach": "allow", "match": {"pathPatterns": ["/pay/*/card/*"]}}"#])
        #expect(none.status == 200, "\(none.body)")
        #expect(none.json?["reachable"] as? Bool == false, "\(none.body)")
        let some = try Curl.request(
            url, json + [#"{"config": \#(config), "canReach": "allow", "match": {"pathPatterns": ["/pay/*/car?"]}}"#])
        #expect(some.json?["reachable"] as? Bool == true, "\(some.body)")
    }
}
