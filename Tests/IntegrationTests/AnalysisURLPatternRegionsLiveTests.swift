import Foundation
import TestSelection
import Testing

/// Issue 32 on the built binary, with `urlPatterns` cut into regions: answers that rested on a
/// pattern were "unknown" (exit 3); now each is exact, and every witness and counterexample is
/// decided again here with `navpolicyd check`.
@Suite("policy analysis: urlPatterns as regions, live", .tags(.live, .volume))
struct AnalysisURLPatternRegionsLiveTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    static func check(_ config: String, _ request: [String: Any]) throws -> [String: Any] {
        try PolicyAnalysisLiveTests.check(config, request)
    }

    static func config(_ defaultDecision: String, _ handlers: [String]) throws -> String {
        try BinaryRunner.temporaryFile(
            #"{"defaultDecision": "\#(defaultDecision)", "handlers": [\#(handlers.joined(separator: ",\n"))]}"#)
    }

    @Test("analyze: a pattern covers a later handler (unreachable), and an allow pattern leaves a cancel to the standard reading")
    func reachability() throws {
        let config = try Self.config(
            "allow",
            [
                #"{"name": "admin", "type": "cancel", "match": {"urlPatterns": [{"protocol": "https", "hostname": "*.example.com", "pathname": "/admin/*"}]}}"#,
                #"{"name": "adminX", "type": "cancel", "match": {"schemes": ["https"], "hosts": ["*.example.com"], "pathPatterns": ["/admin/x*"]}}"#,
                #"{"name": "docs", "type": "allow", "match": {"urlPatterns": [{"hostname": "a.example", "pathname": "/x/*"}]}}"#,
                #"{"name": "docsY", "type": "cancel", "action": "y", "match": {"hosts": ["a.example"], "pathPatterns": ["/x/y*"]}}"#,
            ])
        let result = try BinaryRunner.run(["analyze", "--config", config, "--format", "json"])
        // Before: exit 3, "adminX" and "docsY" unknown (urlPatterns never covered).
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let handlers = try #require(try Self.json(result.stdout)["handlers"] as? [[String: Any]])
        #expect(handlers.map { $0["reachable"] as? Bool } == [true, false, true, true], "\(handlers)")
        #expect(handlers[1]["shadowedBy"] as? [String] == ["admin"])
        for handler in handlers where handler["reachable"] as? Bool == true {
            let witness = try #require(handler["witness"] as? [String: Any])
            let decision = try Self.check(config, witness)
            #expect(decision["handler"] as? String == handler["name"] as? String, "\(witness) → \(decision)")
        }
    }

    @Test(
        "analyze --against: a hosts+paths rewrite of a pattern is told apart; the counterexample decides differently under check")
    func equivalence() throws {
        for (defaultDecision, type) in [("allow", "cancel"), ("cancel", "allow")] {
            let pattern = try Self.config(
                defaultDecision,
                [
                    #"{"name": "p", "type": "\#(type)", "match": {"urlPatterns": [{"protocol": "https", "hostname": "a.example", "pathname": "/x/*"}]}}"#
                ])
            let rewrite = try Self.config(
                defaultDecision,
                [
                    #"{"name": "p", "type": "\#(type)", "match": {"schemes": ["https"], "hosts": ["a.example"], "pathPatterns": ["/x/", "/x/?*"]}}"#
                ])
            let result = try BinaryRunner.run(["analyze", "--config", pattern, "--against", rewrite, "--format", "json"])
            // Before: exit 3 (unknown: urlPatterns not cut into regions).
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            let report = try Self.json(result.stdout)
            #expect(report["equivalent"] as? Bool == false)
            let example = try #require((report["counterexamples"] as? [[String: Any]])?.first)
            let first = try Self.check(pattern, example)
            let second = try Self.check(rewrite, example)
            #expect(first["decision"] as? String != second["decision"] as? String, "\(example): \(first) vs \(second)")
        }
    }

    @Test("analyze --can-reach with --url-pattern: none proven, or a witness in the scope")
    func scopedQueries() throws {
        let config = try Self.config(
            "allow",
            [
                #"{"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}}"#,
                #"{"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}}"#,
            ])
        let none = try BinaryRunner.run([
            "analyze", "--config", config, "--can-reach", "allow", "--url-pattern", "https://pay.example.com/*", "--format",
            "json",
        ])
        // Before: exit 3, "a witness did not decide as the analysis said".
        #expect(none.status == 0, "\(none.stdout)\(none.stderr)")
        #expect(try Self.json(none.stdout)["reachable"] as? Bool == false)
        let some = try BinaryRunner.run([
            "analyze", "--config", config, "--can-reach", "pay", "--url-pattern", "https://pay.example.com/*", "--format",
            "json",
        ])
        #expect(some.status == 1, "\(some.stdout)\(some.stderr)")
        let witness = try #require(try Self.json(some.stdout)["witness"] as? [String: Any])
        #expect((witness["url"] as? String)?.hasPrefix("https://pay.example.com/") == true, "\(witness)")
        #expect(try Self.check(config, witness)["handler"] as? String == "pay")
    }
}
