import Foundation
import TestScratchSupport
import Testing

/// What operators tripped on (issue 28, item 10), each driven from outside: the CLI as a user
/// types it, the daemon over HTTP, logrotate and systemd-analyze on the shipped files.
@Suite("Operator papercuts")
struct OperatorPapercutsLiveTests {
    static let candidate = #"{"handlers": [{"name": "admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}}]}"#

    /// Runs the binary in `directory` (not the package root, whose config/navpolicy.json would
    /// be found), with `NAVPOLICY_CONFIG` only when given.
    static func run(_ arguments: [String], in directory: String, config: String? = nil) throws -> BinaryRunner.Result {
        try BinaryRunner.run(
            arguments, environment: config.map { ["NAVPOLICY_CONFIG": $0] } ?? [:],
            directory: URL(fileURLWithPath: directory))
    }

    static func scratchDirectory(_ name: String) throws -> String {
        let directory = TestScratch.path(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    // MARK: - diff without --against

    @Test("diff without --against names --against and the default it tried, never --config")
    func diffWithoutAgainstBlamesAgainst() throws {
        let directory = try Self.scratchDirectory("diff-against")
        let candidate = directory + "/new.json"
        let urls = directory + "/urls.txt"
        try Self.candidate.write(toFile: candidate, atomically: true, encoding: .utf8)
        try "https://app.example.com/admin\n".write(toFile: urls, atomically: true, encoding: .utf8)

        // No NAVPOLICY_CONFIG: the default path, relative to the working directory, is missing.
        let byDefault = try Self.run(["diff", "--config", candidate, "--urls", urls], in: directory)
        #expect(byDefault.status == 2)
        #expect(byDefault.stderr.contains("--against is missing"), "\(byDefault.stderr)")
        #expect(byDefault.stderr.contains("config/navpolicy.json") && byDefault.stderr.contains("the default path"))
        #expect(byDefault.stderr.contains("pass --against OLD.json"), "\(byDefault.stderr)")
        #expect(!byDefault.stderr.contains("--config"), "the candidate loaded; --config is not at fault: \(byDefault.stderr)")

        // NAVPOLICY_CONFIG names a missing file: the message says that is where it looked.
        let fromEnvironment = try Self.run(
            ["diff", "--config", candidate, "--urls", urls], in: directory, config: directory + "/gone.json")
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr.contains("gone.json, from $NAVPOLICY_CONFIG"), "\(fromEnvironment.stderr)")
        #expect(!fromEnvironment.stderr.contains("--config"), "\(fromEnvironment.stderr)")

        // Given but missing: --against itself is named.
        let given = try Self.run(
            ["diff", "--config", candidate, "--against", directory + "/old.json", "--urls", urls], in: directory)
        #expect(given.status == 2)
        #expect(given.stderr.contains("--against \(directory)/old.json: no such file"), "\(given.stderr)")

        // With a current policy the command works as before.
        try "{\"handlers\": []}".write(toFile: directory + "/old.json", atomically: true, encoding: .utf8)
        let works = try Self.run(
            ["diff", "--config", candidate, "--against", directory + "/old.json", "--urls", urls], in: directory)
        #expect(works.status == 0 && works.stdout.contains("1 replayed, 1 changed"), "\(works.stdout)\(works.stderr)")
    }

    // MARK: - POST /v1/policy/diff

    static func postDiff(_ daemon: DaemonProcess, _ body: String) throws -> Curl.Response {
        try Curl.request(daemon.baseURL + "/v1/policy/diff", ["-H", "Content-Type: application/json", "-d", body])
    }

    @Test("POST /v1/policy/diff: an invalid candidate says the candidate is invalid, not that a previous policy keeps serving")
    func diffEndpointInvalidCandidate() throws {
        let daemon = try DaemonProcess()
        let response = try Self.postDiff(
            daemon, #"{"config": {"handlers": [{"name": "x", "type": "nope"}]}, "requests": [{"url": "https://a.example/"}]}"#)
        #expect(response.status == 422)
        #expect((response.json?["type"] as? String)?.hasSuffix(":invalid-config") == true, "\(response.body)")
        let detail = response.json?["detail"] as? String ?? ""
        #expect(!detail.contains("keeps serving") && !detail.contains("previous policy"), "\(detail)")
        #expect(detail.contains("candidate") && detail.contains("nothing was replayed"), "\(detail)")
        #expect((response.json?["errors"] as? [String])?.first?.hasPrefix("/handlers/0/type") == true, "\(response.body)")
        // Reload keeps its own wording: there a previous policy does keep serving.
        #expect(try Curl.request(daemon.baseURL + "/v1/policy").status == 200)
    }

    @Test("POST /v1/policy/diff with nothing to replay: 409 nothing-to-replay (no log, an empty log), 400 for requests: []")
    func diffEndpointNothingToReplay() throws {
        let noLog = try DaemonProcess()
        let withoutLog = try Self.postDiff(noLog, #"{"config": \#(Self.candidate)}"#)
        #expect(withoutLog.status == 409, "\(withoutLog.body)")
        #expect((withoutLog.json?["type"] as? String)?.hasSuffix(":nothing-to-replay") == true, "\(withoutLog.body)")
        #expect((withoutLog.json?["detail"] as? String)?.contains("writes no decision log") == true, "\(withoutLog.body)")

        let logPath = try Self.scratchDirectory("diff-log") + "/decisions.ndjson"
        let emptyLog = try DaemonProcess(arguments: ["--decision-log", logPath])
        let empty = try Self.postDiff(emptyLog, #"{"config": \#(Self.candidate)}"#)
        #expect(empty.status == 409, "\(empty.body)")
        #expect((empty.json?["detail"] as? String)?.contains("no request to replay (0 lines read)") == true, "\(empty.body)")

        let nothingPosted = try Self.postDiff(emptyLog, #"{"config": \#(Self.candidate), "requests": []}"#)
        #expect(nothingPosted.status == 400 && nothingPosted.json?["field"] as? String == "requests", "\(nothingPosted.body)")

        // Once a decision is logged there is something to replay.
        _ = try emptyLog.decide("https://app.example.com/admin")
        let deadline = Date().addingTimeInterval(10)
        var report = try Self.postDiff(emptyLog, #"{"config": \#(Self.candidate)}"#)
        while report.status != 200, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            report = try Self.postDiff(emptyLog, #"{"config": \#(Self.candidate)}"#)
        }
        #expect(report.status == 200 && report.json?["source"] as? String == "decisionLog", "\(report.body)")
        #expect(report.json?["changed"] as? Int == 1, "\(report.body)")
    }

    // MARK: - bench --format json

    @Test("bench --format json like every other command; --json still works, with a deprecation warning")
    func benchFormatJSON() throws {
        let formatted = try BinaryRunner.run(["bench", "--iterations", "50", "--format", "json"])
        #expect(formatted.status == 0, "\(formatted.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(formatted.stdout.utf8)) as? [String: Any]
        #expect(object?["p50Nanoseconds"] != nil, "\(formatted.stdout)")
        #expect(!formatted.stderr.contains("deprecated"))

        let legacy = try BinaryRunner.run(["bench", "--iterations", "50", "--json"])
        #expect(legacy.status == 0)
        #expect((try? JSONSerialization.jsonObject(with: Data(legacy.stdout.utf8))) != nil, "\(legacy.stdout)")
        #expect(legacy.stderr.contains("--json is deprecated; use --format json"), "\(legacy.stderr)")

        let both = try BinaryRunner.run(["bench", "--iterations", "50", "--format", "text", "--json"])
        #expect(both.status == 2 && both.stderr.contains("--format") && both.stderr.contains("--json"), "\(both.stderr)")
        let help = try BinaryRunner.run(["bench", "--help"])
        #expect(help.stdout.contains("--format text|json"), "\(help.stdout)")
    }

    // MARK: - validate --strict: the unreachable warning is exact

    /// `validate --strict` and `check` on a two-handler chain.
    static func lint(_ handlers: String) throws -> (validate: BinaryRunner.Result, config: String) {
        let config = try BinaryRunner.temporaryFile(#"{"handlers": [\#(handlers)]}"#)
        return (try BinaryRunner.run(["validate", "--config", config, "--strict"]), config)
    }

    static func decidingHandler(_ config: String, _ url: String) throws -> String? {
        let result = try BinaryRunner.run(["check", "--config", config, url])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["handler"] as? String
    }

    @Test("validate --strict warns only when the later handler can never decide, and check agrees")
    func unreachableWarningIsExact() throws {
        // `/admin/*` matches `/admin` itself (and `/admin/`): pathPrefixes ["/admin"] after it
        // can never decide, and validate says so for certain, not "may be".
        let covered = try Self.lint(
            #"""
            {"name": "pages", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}},
            {"name": "root", "type": "about", "match": {"pathPrefixes": ["/admin"]}}
            """#)
        #expect(covered.validate.status == 1)
        #expect(!covered.validate.stdout.contains("may be unreachable"), "\(covered.validate.stdout)")
        #expect(covered.validate.stdout.contains(#"handler "root" can never decide"#), "\(covered.validate.stdout)")
        for path in ["/admin", "/admin/", "/admin/users", "/ADMIN/x"] {
            #expect(try Self.decidingHandler(covered.config, "https://app.example.com" + path) == "pages", "\(path)")
        }

        // A pattern that needs a character after `/admin/` leaves `/admin` to the later handler:
        // no warning, so the shadow-then-enforce rollout passes CI.
        let reachable = try Self.lint(
            #"""
            {"name": "pages", "type": "cancel", "match": {"pathPatterns": ["/admin/?*"]}},
            {"name": "root", "type": "about", "match": {"pathPrefixes": ["/admin"]}}
            """#)
        #expect(reachable.validate.status == 0, "\(reachable.validate.stdout)")
        #expect(!reachable.validate.stdout.contains("unreachable") && !reachable.validate.stdout.contains("never decide"))
        #expect(try Self.decidingHandler(reachable.config, "https://app.example.com/admin") == "root")

        // Pattern after pattern: `?` is one character, so `/a/*` still decides `/a/bb`.
        let patterns = try Self.lint(
            #"""
            {"name": "one", "type": "cancel", "match": {"pathPatterns": ["/a/?"]}},
            {"name": "any", "type": "about", "match": {"pathPatterns": ["/a/*"]}}
            """#)
        #expect(patterns.validate.status == 0, "\(patterns.validate.stdout)")
        #expect(try Self.decidingHandler(patterns.config, "https://app.example.com/a/bb") == "any")

        // And a proven cover between patterns is reported as certain.
        let nested = try Self.lint(
            #"""
            {"name": "wide", "type": "cancel", "match": {"pathPatterns": ["/x/*"]}},
            {"name": "narrow", "type": "about", "match": {"pathPatterns": ["/x/y*"]}}
            """#)
        #expect(nested.validate.stdout.contains(#"handler "narrow" can never decide"#), "\(nested.validate.stdout)")
    }

    // MARK: - 304 from /v1/policy/bundle

    @Test("a 304 from /v1/policy/bundle carries the 200's Content-Length (RFC 9110 §8.6), never 0, and no body")
    func notModifiedBundleLength() throws {
        let daemon = try DaemonProcess()
        let url = daemon.baseURL + "/v1/policy/bundle"
        let full = try Curl.request(url)
        #expect(full.status == 200)
        let length = try #require(full.headers["content-length"])
        #expect(Int(length) == full.body.utf8.count)
        let tag = try #require(full.headers["etag"])
        // Two requests on one connection: the second parses only if the 304 sent no body.
        let raw = try Curl.standardOutput(
            of: "/usr/bin/curl", ["-s", "-i", "--max-time", "20", "-H", "If-None-Match: \(tag)", url, url])
        let heads = raw.components(separatedBy: "HTTP/1.1 ").filter { !$0.isEmpty }
        #expect(heads.count == 2 && heads.allSatisfy { $0.hasPrefix("304") }, "\(raw)")
        for head in heads {
            let lengths = head.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("content-length:") }
            #expect(lengths == ["Content-Length: \(length)"], "\(head)")
        }
        let head = try Curl.request(url, ["-I", "-H", "If-None-Match: \(tag)"])
        #expect(head.status == 304 && head.headers["content-length"] == length, "\(head.headers)")
    }

    // MARK: - logrotate

    /// The shipped logrotate file pointed at `directory`, run with a `systemctl` that answers
    /// `is-active` with `activeStatus` and `kill` with `killStatus`; returns logrotate's exit
    /// status, its output and the systemctl calls.
    static func rotate(activeStatus: Int, killStatus: Int) throws -> (status: Int32, output: String, calls: [String]) {
        let directory = try scratchDirectory("logrotate")
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        let calls = directory + "/calls"
        let systemctl = """
            #!/bin/sh
            echo "$*" >> '\(calls)'
            for argument in "$@"; do
                case "$argument" in
                    is-active) exit \(activeStatus) ;;
                    kill) [ \(killStatus) -eq 0 ] || echo "Failed to kill unit navpolicyd.service: Unit navpolicyd.service not loaded." >&2; exit \(killStatus) ;;
                esac
            done
            exit 1
            """
        try systemctl.write(toFile: bin + "/systemctl", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/systemctl")
        let log = directory + "/decisions.ndjson"
        try "{\"decision\":\"allow\"}\n".write(toFile: log, atomically: true, encoding: .utf8)
        let shipped = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent("deploy/logrotate/navpolicyd"), encoding: .utf8)
        let config = directory + "/logrotate.conf"
        try shipped.replacing("/var/log/navpolicyd/decisions.ndjson", with: log)
            .write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config)
        let output = try Curl.standardOutput(
            of: "/bin/sh",
            [
                "-c",
                "PATH='\(bin)':\"$PATH\" /usr/sbin/logrotate --force --state '\(directory)/state' '\(config)' 2>&1; echo \"exit=$?\"",
            ])
        let status = output.split(separator: "\n").last.flatMap { Int32($0.dropFirst("exit=".count)) } ?? -1
        let called = ((try? String(contentsOfFile: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (status, output, called)
    }

    @Test("logrotate: a failed SIGUSR1 fails the rotation loudly; a stopped service is not signalled; -d accepts the file")
    func logrotateReportsFailedSignal() throws {
        let failed = try Self.rotate(activeStatus: 0, killStatus: 1)
        #expect(failed.status != 0, "a failed signal must not be hidden: \(failed.output)")
        #expect(failed.output.contains("Failed to kill unit navpolicyd.service"), "\(failed.output)")
        let signal = ["kill", "--signal=SIGUSR1", "--kill-whom=main"]
        #expect(failed.calls.contains { call in signal.allSatisfy { call.contains($0) } }, "\(failed.calls)")

        let signalled = try Self.rotate(activeStatus: 0, killStatus: 0)
        #expect(signalled.status == 0, "\(signalled.output)")
        #expect(signalled.calls.contains { $0.contains("kill") }, "\(signalled.calls)")

        let stopped = try Self.rotate(activeStatus: 3, killStatus: 1)
        #expect(stopped.status == 0, "a stopped daemon reopens the path when it starts: \(stopped.output)")
        #expect(!stopped.calls.contains { $0.contains("kill") }, "\(stopped.calls)")

        let shipped = BinaryRunner.packageRoot.appendingPathComponent("deploy/logrotate/navpolicyd").path
        let debug = try Curl.standardOutput(
            of: "/bin/sh", ["-c", "/usr/sbin/logrotate -d '\(shipped)' 2>&1; echo \"exit=$?\""])
        #expect(debug.hasSuffix("exit=0\n"), "\(debug)")
    }

    // MARK: - systemd Documentation=

    @Test("every Documentation= of the systemd units is installed by deploy/systemd/README.md, and systemd-analyze finds it")
    func unitDocumentationIsInstalled() throws {
        let systemd = BinaryRunner.packageRoot.appendingPathComponent("deploy/systemd")
        let readme = try String(contentsOf: systemd.appendingPathComponent("README.md"), encoding: .utf8)
        let manDirectory = try Self.scratchDirectory("man")
        for unit in ["navpolicyd.service", "navpolicyd.socket"] {
            let text = try String(contentsOf: systemd.appendingPathComponent(unit), encoding: .utf8)
            let entries = text.split(separator: "\n").filter { $0.hasPrefix("Documentation=") }
                .flatMap { $0.dropFirst("Documentation=".count).split(separator: " ").map(String.init) }
            #expect(!entries.isEmpty, "\(unit)")
            for entry in entries {
                if entry.hasPrefix("man:") {
                    // man:NAME(SECTION) → the page the README installs, as the README makes it.
                    let page = entry.dropFirst(4)
                    let name = page.prefix { $0 != "(" }
                    let section = page.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
                    let installed = "/usr/local/share/man/man\(section)/\(name).\(section)"
                    #expect(readme.contains(installed), "\(unit): \(entry) is not installed by the README (\(installed))")
                    #expect(readme.contains("navpolicyd help --man | sudo install"), "the README installs the generated page")
                } else if entry.hasPrefix("file:") {
                    let path = String(entry.dropFirst("file://".count))
                    #expect(readme.contains(path), "\(unit): \(entry) is not installed by the README")
                } else {
                    #expect(entry.hasPrefix("https://"), "\(unit): \(entry)")
                }
            }
        }
        // systemd-analyze verify runs `man` for man: entries: it passes with the page installed
        // as the README installs it (here into a MANPATH of the test's own).
        let page = try BinaryRunner.run(["help", "--man"])
        try FileManager.default.createDirectory(atPath: manDirectory + "/man1", withIntermediateDirectories: true)
        try page.stdout.write(toFile: manDirectory + "/man1/navpolicyd.1", atomically: true, encoding: .utf8)
        let unitCopy = try Self.scratchDirectory("unit") + "/navpolicyd.service"
        let service = try String(contentsOf: systemd.appendingPathComponent("navpolicyd.service"), encoding: .utf8)
        try service.replacing("/usr/local/bin/navpolicyd", with: BinaryRunner.binary.path)
            .write(toFile: unitCopy, atomically: true, encoding: .utf8)
        let verify = try Curl.standardOutput(
            of: "/bin/sh",
            ["-c", "MANPATH='\(manDirectory)' systemd-analyze verify '\(unitCopy)' 2>&1; echo \"exit=$?\""])
        #expect(verify.hasSuffix("exit=0\n"), "\(verify)")
    }
}
