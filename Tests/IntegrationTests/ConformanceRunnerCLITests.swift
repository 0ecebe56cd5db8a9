import Foundation
import Testing

/// `navpolicyd test --vectors config/conformance/*.json`: the one command a port's CI runs (and
/// `make test` runs), from outside: it passes on the shipped vectors, fails (exit 1, naming the
/// vector) on any altered answer, and refuses a malformed file (exit 2) before running a case.
@Suite("navpolicyd test --vectors: the conformance runner")
struct ConformanceRunnerCLITests {
    static let directory = BinaryRunner.packageRoot.appendingPathComponent("config/conformance")

    /// Every shipped vector file, as the shell expands `config/conformance/*.json`.
    static func shippedFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
            .map { "config/conformance/\($0)" }
    }

    static func vector(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `name`'s vector with `change` applied to its cases, written to a scratch file.
    static func altered(_ name: String, _ change: (inout [[String: Any]]) throws -> Void) throws -> String {
        var vector = try Self.vector(name)
        var cases = try #require(vector["cases"] as? [[String: Any]])
        try change(&cases)
        vector["cases"] = cases
        let data = try JSONSerialization.data(withJSONObject: vector)
        return try BinaryRunner.temporaryFile(String(decoding: data, as: UTF8.self))
    }

    static func index(of name: String, in cases: [[String: Any]]) throws -> Int {
        try #require(cases.firstIndex { $0["name"] as? String == name }, "no case \(name)")
    }

    @Test("every shipped vector passes, invalidRequest cases included; a line per file and the total")
    func shippedVectorsPass() throws {
        let files = try Self.shippedFiles()
        #expect(files.count >= 5)
        let run = try BinaryRunner.run(["test", "--vectors"] + files)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        var total = 0
        var refused = 0
        for file in files {
            let vector = try Self.vector(String(file.dropFirst("config/conformance/".count)))
            let cases = try #require(vector["cases"] as? [[String: Any]])
            total += cases.count
            refused += cases.filter { ($0["expect"] as? [String: Any])?["invalidRequest"] as? Bool == true }.count
            let name = try #require(vector["name"] as? String)
            #expect(run.stdout.contains("\(file) (\(name)): \(cases.count) passed, 0 failed\n"), "\(run.stdout)")
        }
        #expect(refused >= 5, "the runner must be exercised on requests the engine refuses")
        #expect(run.lines.dropLast().last == "total: \(total) passed, 0 failed (\(files.count) files)", "\(run.stdout)")

        let json = try BinaryRunner.run(["test", "--vectors", "--format", "json"] + files)
        #expect(json.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["passed"] as? Int == total)
        #expect(report["failed"] as? Int == 0)
        #expect((report["files"] as? [[String: Any]])?.count == files.count)
        #expect((report["failures"] as? [Any])?.isEmpty == true)
    }

    @Test("an expected decision flipped fails with exit 1, naming the vector, its expected and actual answers")
    func flippedDecisionFails() throws {
        let file = try Self.altered("default.json") { cases in
            let position = try Self.index(of: "logout link", in: cases)
            var expect = try #require(cases[position]["expect"] as? [String: Any])
            #expect(expect["decision"] as? String == "cancel")
            expect["decision"] = "allow"
            cases[position]["expect"] = expect
        }
        let run = try BinaryRunner.run(["test", "--vectors", file, "config/conformance/hosts.json"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("FAIL \(file) /cases/0 \"logout link\" [policy-test]"), "\(run.stdout)")
        #expect(run.stdout.contains(#"decision: expected "allow", got "cancel""#), "\(run.stdout)")
        #expect(run.stdout.contains(#"  expected: {"decision":"allow","handler":"logout""#), "\(run.stdout)")
        #expect(run.stdout.contains(#"  actual: {"decision":"cancel","handler":"logout""#), "\(run.stdout)")
        #expect(run.stdout.contains("(default): 72 passed, 1 failed"), "\(run.stdout)")
        #expect(run.stdout.contains("config/conformance/hosts.json (hosts): 37 passed, 0 failed"), "\(run.stdout)")
        #expect(run.lines.dropLast().last == "total: 109 passed, 1 failed (2 files)", "\(run.stdout)")

        let json = try BinaryRunner.run(["test", "--vectors", "--format", "json", file])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let failure = try #require((report["failures"] as? [[String: Any]])?.first)
        #expect(failure["case"] as? String == "/cases/0")
        #expect(failure["name"] as? String == "logout link")
        #expect((failure["expected"] as? [String: Any])?["decision"] as? String == "allow")
        #expect((failure["actual"] as? [String: Any])?["decision"] as? String == "cancel")
    }

    @Test("an expected URL that is only canonically equivalent to the answer's fails: members compare byte for byte")
    func canonicallyEquivalentURLFails() throws {
        // U+037E GREEK QUESTION MARK is canonically equivalent to `;`: Swift's `==` on String
        // called the two URLs equal (outside attack round 11, F1).
        let file = try Self.altered("default.json") { cases in
            let position = try Self.index(of: "logout, matrix parameter", in: cases)
            var expect = try #require(cases[position]["expect"] as? [String: Any])
            let url = try #require(expect["url"] as? String)
            #expect(url.contains(";"))
            expect["url"] = url.replacingOccurrences(of: ";", with: "\u{37E}")
            cases[position]["expect"] = expect
        }
        let run = try BinaryRunner.run(["test", "--vectors", file])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\"logout, matrix parameter\""), "\(run.stdout)")
        #expect(run.stdout.contains("url: expected"), "\(run.stdout)")
    }

    @Test("an invalidRequest made valid, and a valid request expected invalid, fail with exit 1")
    func invalidRequestAltered() throws {
        let madeValid = try Self.altered("hosts.json") { cases in
            let position = try Self.index(of: "http://256.0.0.1/", in: cases)
            #expect((cases[position]["expect"] as? [String: Any])?["invalidRequest"] as? Bool == true)
            cases[position]["expect"] = [
                "decision": "allow", "handler": NSNull(), "action": NSNull(), "location": NSNull(),
                "url": "http://256.0.0.1/",
            ]
        }
        let valid = try BinaryRunner.run(["test", "--vectors", madeValid])
        #expect(valid.status == 1, "\(valid.stdout)\(valid.stderr)")
        #expect(valid.stdout.contains("\"http://256.0.0.1/\" [ipv4-forms]"), "\(valid.stdout)")
        #expect(valid.stdout.contains("expected a decision, but the engine refused the request as invalid"))
        #expect(valid.stdout.contains(#"actual: {"decision":"cancel","invalidRequest":true,"error":"url: "#), "\(valid.stdout)")

        let madeInvalid = try Self.altered("hosts.json") { cases in
            let position = try Self.index(of: "http://127.0.0.1/", in: cases)
            cases[position]["expect"] = ["decision": "cancel", "invalidRequest": true]
        }
        let invalid = try BinaryRunner.run(["test", "--vectors", madeInvalid])
        #expect(invalid.status == 1, "\(invalid.stdout)\(invalid.stderr)")
        #expect(invalid.stdout.contains("\"http://127.0.0.1/\" [ipv4-forms]"), "\(invalid.stdout)")
        #expect(invalid.stdout.contains("expected the request to be refused as invalid, but the engine decided it"))
    }

    @Test("a handler name changed, in an expectation or in the bundle, and a shadow entry dropped, fail with exit 1")
    func handlerNameAltered() throws {
        let renamed = try Self.altered("match-forms.json") { cases in
            let position = try Self.index(of: "https://app.example/admin/users", in: cases)
            var expect = try #require(cases[position]["expect"] as? [String: Any])
            #expect(expect["handler"] as? String == "admin")
            expect["handler"] = "admins"
            cases[position]["expect"] = expect
        }
        let run = try BinaryRunner.run(["test", "--vectors", renamed])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\"https://app.example/admin/users\" [pathPrefixes]"), "\(run.stdout)")
        #expect(run.stdout.contains(#"handler: expected "admins", got "admin""#), "\(run.stdout)")

        let shadowless = try Self.altered("match-forms.json") { cases in
            let position = try Self.index(of: "https://app.example/admin/users", in: cases)
            var expect = try #require(cases[position]["expect"] as? [String: Any])
            #expect(expect.removeValue(forKey: "shadow") != nil)
            cases[position]["expect"] = expect
        }
        let shadow = try BinaryRunner.run(["test", "--vectors", shadowless])
        #expect(shadow.status == 1)
        #expect(shadow.stdout.contains(#"shadow: expected [], got [{"handler":"admin-rollout""#), "\(shadow.stdout)")

        // The policy's handler renamed inside the bundle: every case it decides now fails.
        let text = try String(contentsOf: Self.directory.appendingPathComponent("default.json"), encoding: .utf8)
        #expect(text.contains(#"{\"name\":\"logout\",\"type\":\"logout\""#))
        let bundleRenamed = try BinaryRunner.temporaryFile(
            text.replacingOccurrences(
                of: #"{\"name\":\"logout\",\"type\":\"logout\""#, with: #"{\"name\":\"signout\",\"type\":\"logout\""#))
        let policy = try BinaryRunner.run(["test", "--vectors", bundleRenamed])
        #expect(policy.status == 1)
        #expect(policy.stdout.contains(#"handler: expected "logout", got "signout""#), "\(policy.stdout)")
    }

    @Test("a malformed file, a duplicate member, an unknown field or a refused bundle exit 2 before any case runs")
    func malformedFilesAreUsageErrors() throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent("hosts.json"), encoding: .utf8)
        let good = "config/conformance/default.json"
        func refused(_ contents: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let file = try BinaryRunner.temporaryFile(contents)
            let run = try BinaryRunner.run(["test", "--vectors", good, file])
            #expect(run.status == 2, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stdout.isEmpty, "no case runs when a file is bad: \(run.stdout)", sourceLocation: sourceLocation)
            #expect(run.stderr.contains("navpolicyd test: vector file \(file)"), sourceLocation: sourceLocation)
            #expect(run.stderr.contains(message), "\(run.stderr)", sourceLocation: sourceLocation)
        }
        try refused(String(text.dropLast(20)), "invalid JSON")
        try refused(
            text.replacingOccurrences(
                of: #""format": "navpolicy-conformance","#,
                with: #""format": "navpolicy-conformance", "format": "navpolicy-conformance","#),
            #"duplicate member "format""#)
        try refused(
            text.replacingOccurrences(of: #""class": "ipv4-forms","#, with: #""class": "ipv4-forms", "clas": 1,"#),
            #"/cases/0/clas: unknown field "clas"; did you mean "class"?"#)
        try refused(
            text.replacingOccurrences(of: #""invalidRequest": true"#, with: #""invalidRequest": true, "handler": null"#),
            #"/cases/7/expect/handler: unknown field "handler""#)
        try refused(
            text.replacingOccurrences(of: #""location": null,"#, with: ""), "/cases/0/expect/location: required field is missing")
        try refused(text.replacingOccurrences(of: #""version": 1"#, with: #""version": 2"#), "/version: 2")
        try refused(
            text.replacingOccurrences(of: #""bundle": "{"#, with: #""bundle": "x{"#),
            "/bundle: refused, as an app would refuse it: malformed")
        try refused("[]", "(root): expected an object")

        let missing = try BinaryRunner.run(["test", "--vectors", "config/conformance/no-such.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("vector file config/conformance/no-such.json"), "\(missing.stderr)")
    }

    @Test("usage: --vectors needs files and carries its own policy; several files need --vectors")
    func usage() throws {
        let files = try Self.shippedFiles()
        let none = try BinaryRunner.run(["test", "--vectors"])
        #expect(none.status == 2)
        let several = try BinaryRunner.run(["test"] + files)
        #expect(several.status == 2)
        #expect(several.stderr.contains("add --vectors"), "\(several.stderr)")
        for extra in [["--config", "config/navpolicy.json"], ["--coverage"]] {
            let run = try BinaryRunner.run(["test", "--vectors"] + extra + files)
            #expect(run.status == 2, "\(extra)")
        }
        #expect(try BinaryRunner.run(["test", "config/navpolicy.tests.json"]).status == 0, "one table still runs as before")
    }
}
