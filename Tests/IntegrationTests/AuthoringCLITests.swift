import Foundation
import Testing

/// validate --strict / --format json, test --coverage / --fail-under / --explain, and diff, from outside.
@Suite("navpolicyd authoring commands")
struct AuthoringCLITests {
    static let unreachable = #"""
        {"handlers": [
          {"name": "all-admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}},
          {"name": "users", "type": "about", "match": {"paths": ["/admin/users"]}}
        ]}
        """#

    @Test("validate warns with exit 0, --strict makes warnings exit 1, --format json for machines")
    func validateLint() throws {
        let config = try BinaryRunner.temporaryFile(Self.unreachable)
        let text = try BinaryRunner.run(["validate", "--config", config])
        #expect(text.status == 0)
        #expect(text.stdout.contains(#"warning /handlers/1: handler "users" can never decide"#))
        #expect(text.stdout.contains("server: listen=127.0.0.1:8080"), "effective settings with defaults")
        #expect(try BinaryRunner.run(["validate", "--config", config, "--strict"]).status == 1)
        let json = try BinaryRunner.run(["validate", "--config", config, "--format", "json"])
        #expect(json.stdout.contains(#""warnings":[{"kind":"unreachable","pointer":"/handlers/1""#))
        #expect(try BinaryRunner.run(["validate", "--format", "yaml"]).status == 2)
        #expect(try BinaryRunner.run(["validate", "--strict"]).status == 0, "the shipped policy is lint-clean")
    }

    @Test("test --coverage reports entries, --fail-under fails below the threshold, --explain prints traces")
    func testCoverage() throws {
        let cases = try BinaryRunner.temporaryFile(
            #"[{"url": "https://a.example/logout", "expect": {"decision": "cancel", "handler": "logout"}}]"#)
        let partial = try BinaryRunner.run(["test", "--coverage", "--fail-under", "100", cases])
        #expect(partial.status == 1)
        #expect(partial.stdout.contains(#"NOT COVERED payment hosts[0] "pay.example.com""#))
        #expect(partial.stdout.contains("coverage: 28.6% (2 of 7 handlers and entries)"))
        #expect(try BinaryRunner.run(["test", "--coverage", "--fail-under", "20", cases]).status == 0)
        #expect(try BinaryRunner.run(["test", "--coverage", "--fail-under", "101", cases]).status == 2)
        #expect(try BinaryRunner.run(["test", "--fail-under", "50", cases]).status == 2)
        #expect(try BinaryRunner.run(["test", try BinaryRunner.temporaryFile("[]")]).status == 2)
        let unknown = try BinaryRunner.temporaryFile(
            #"[{"url": "https://a.example/logout", "expect": {"decision": "cancel", "handler": "logot"}}]"#)
        let unknownRun = try BinaryRunner.run(["test", unknown])
        #expect(unknownRun.status == 2)
        #expect(unknownRun.stderr.contains(#""logot" is not a handler in the config"#))
        let failing = try BinaryRunner.temporaryFile(
            #"[{"url": "https://a.example/SIGN_OUT/", "expect": {"decision": "allow"}}]"#)
        let explained = try BinaryRunner.run(["test", "--explain", failing])
        #expect(explained.status == 1)
        #expect(explained.stdout.contains(#"decided logout: matched: paths[1] "/sign_out" ~ "/SIGN_OUT/""#))
    }

    @Test("diff groups changes, --format json, --fail-on-change exits 1")
    func diff() throws {
        let candidate = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}, {"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}]}"#
        )
        let log = try BinaryRunner.temporaryFile(
            [
                #"{"time":"t","decisionId":"1","request":{"url":"https://a.example/admin/x","method":"GET","navigationType":"other","targetFrame":"main","sourceURL":null},"decision":{},"handler":null,"revision":"r"}"#,
                #"{"time":"t","decisionId":"2","request":{"url":"https://a.example/sign_out"},"decision":{},"handler":"logout","revision":"r"}"#,
                #"{"time":"t","decisionId":"3","request":{"url":"https://a.example/home"},"decision":{},"handler":null,"revision":"r"}"#,
            ].joined(separator: "\n") + "\n")
        let text = try BinaryRunner.run(["diff", "--config", candidate, "--log", log])
        #expect(text.status == 0)
        #expect(text.stdout.contains("(default) → admin: 1"))
        #expect(text.stdout.contains("logout → (default): 1"))
        #expect(text.stdout.hasSuffix("3 replayed, 2 changed, 0 invalid\n"))
        #expect(text.stderr.contains("3 log lines were decided under another policy revision (first: r)"))
        #expect(try BinaryRunner.run(["diff", "--config", candidate, "--log", log, "--fail-on-change"]).status == 1)
        let json = try BinaryRunner.run(["diff", "--config", candidate, "--log", log, "--format", "json"])
        #expect(
            json.stdout.hasPrefix(#"{"total":3,"changed":2,"invalid":0,"groups":[{"from":"(default)","to":"admin","count":1"#))
        let urls = try BinaryRunner.temporaryFile("# comment\nhttps://a.example/home\n\n")
        #expect(try BinaryRunner.run(["diff", "--config", candidate, "--urls", urls, "--fail-on-change"]).status == 0)
        #expect(try BinaryRunner.run(["diff", "--config", candidate]).status == 2)
        let broken = try BinaryRunner.temporaryFile("{not json}\n")
        let brokenRun = try BinaryRunner.run(["diff", "--config", candidate, "--log", broken])
        #expect(brokenRun.status == 2)
        #expect(brokenRun.stderr.contains(":1: not a JSON line"))
    }
}
