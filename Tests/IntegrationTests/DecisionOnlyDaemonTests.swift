import Foundation
import TestScratchSupport
import Testing

/// `intake.enabled: false`: a decision-only daemon (the shape that may run replicated)
/// opens no database, so a missing or unusable data directory must not stop it; with intake
/// on, the same directory must stop it at start with the path and the reason.
@Suite("decision-only daemon (intake.enabled false)", .serialized)
struct DecisionOnlyDaemonTests {
    /// A policy with a proxy section, so both front ends start; `intakeEnabled` nil leaves
    /// `intake.enabled` out (the default, on).
    static func config(intakeEnabled: Bool?) -> String {
        """
        {"defaultDecision": "allow",
         "handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}],
         "proxy": {"timeoutMilliseconds": 1500, "allowInternalDestinations": true},
         "intake": {\(intakeEnabled.map { #""enabled": \#($0)"# } ?? "")}}
        """
    }

    /// Data directories no daemon can create or write: missing under a regular file (as root,
    /// permission bits would not stop the test process), and, when not root, a 0555 directory.
    static func unusableDataDirectories() throws -> [(path: String, reason: String)] {
        let base = TestScratch.url.appendingPathComponent("navpolicyd-unusable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let regularFile = base.appendingPathComponent("not-a-directory").path
        _ = FileManager.default.createFile(atPath: regularFile, contents: Data("x".utf8))
        var directories = [(path: regularFile + "/data", reason: "\(regularFile) is not a directory")]
        if getuid() != 0 {
            let readOnly = base.appendingPathComponent("read-only").path
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly)
            directories.append((path: readOnly, reason: "cannot write in \(readOnly)"))
        }
        return directories
    }

    @Test(
        "intake off: starts with a missing data directory and never creates it; decide and the proxy work; intake answers 404 intake-disabled"
    )
    func startsWithoutDataDirectory() throws {
        let missing = TestScratch.root + "/navpolicyd-missing-\(UUID().uuidString)/data"
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(
            config: Self.config(intakeEnabled: false), arguments: ["--proxy-listen", "127.0.0.1:0"],
            environment: ["NAVPOLICY_DATA_DIR": missing])

        let decision = try Curl.request(daemon.baseURL + "/v1/decide?url=https://app.example/logout")
        #expect(decision.status == 200)
        #expect(decision.json?["decision"] as? String == "cancel")
        let proxied = try Curl.request(origin.baseURL + "/account", ["-x", "127.0.0.1:\(daemon.proxyPort())"])
        #expect(proxied.status == 200)
        #expect(proxied.body.contains("origin /account"))

        try expectIntakeDisabled(daemon)
        let listening = try #require(daemon.logLines.first { $0.contains(#""event":"listening""#) })
        #expect(listening.contains(#""intake":false"#))
        #expect(!FileManager.default.fileExists(atPath: missing), "intake off must not create the data directory")
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))
    }

    @Test("intake off: an unusable data directory does not stop start-up")
    func startsWithUnusableDataDirectory() throws {
        for directory in try Self.unusableDataDirectories() {
            let daemon = try DaemonProcess(
                config: Self.config(intakeEnabled: false), environment: ["NAVPOLICY_DATA_DIR": directory.path])
            let decision = try Curl.request(daemon.baseURL + "/v1/decide?url=https://app.example/")
            #expect(decision.status == 200, "\(directory.path): \(decision.body)")
            try expectIntakeDisabled(daemon)
        }
    }

    @Test("intake on (the default): an unusable data directory stops start-up with exit 2, the path and the reason")
    func intakeOnRefusesUnusableDataDirectory() throws {
        let config = try BinaryRunner.temporaryFile(Self.config(intakeEnabled: nil))
        for directory in try Self.unusableDataDirectories() {
            let result = try runServe(config: config, environment: ["NAVPOLICY_DATA_DIR": directory.path])
            #expect(result.status == 2, "\(directory.path): \(result.stderr)")
            #expect(result.stderr.contains(directory.path + "/intake.sqlite3"), "\(result.stderr)")
            #expect(result.stderr.contains(directory.reason), "\(result.stderr)")
            #expect(result.stderr.contains("intake.enabled"), "\(result.stderr)")
        }
    }

    @Test("validate: intake.enabled must be a boolean")
    func validateChecksEnabled() throws {
        let good = try BinaryRunner.temporaryFile(Self.config(intakeEnabled: false))
        #expect(try BinaryRunner.run(["validate", "--config", good]).status == 0)
        let bad = try BinaryRunner.temporaryFile(
            #"{"defaultDecision": "allow", "handlers": [], "intake": {"enabled": "no"}}"#)
        let result = try BinaryRunner.run(["validate", "--config", bad])
        #expect(result.status == 1)
        #expect((result.stdout + result.stderr).contains("/intake/enabled"))
    }

    /// Every intake route answers the same 404 problem, before any authorization or parsing.
    private func expectIntakeDisabled(_ daemon: DaemonProcess) throws {
        let uriList = ["-H", "Content-Type: text/uri-list", "--data-binary", "https://app.example/article"]
        let requests: [(path: String, arguments: [String])] = [
            ("/v1/intake", ["-X", "POST"] + uriList), ("/v1/intake", []),
            ("/v1/intake/share-target", ["-X", "POST", "--data", "url=https://app.example/"]),
            ("/v1/intake/1", []), ("/v1/intake/1", ["-X", "DELETE"]),
        ]
        for request in requests {
            let response = try Curl.request(daemon.baseURL + request.path, request.arguments)
            #expect(response.status == 404, "\(request.path) \(request.arguments): \(response.body)")
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:intake-disabled")
            #expect((response.json?["detail"] as? String)?.contains("intake.enabled is false") == true)
        }
    }

    /// `navpolicyd serve` expected to exit at start; stopped after a bounded wait if it does not.
    private func runServe(config: String, environment: [String: String]) throws -> BinaryRunner.Result {
        let process = Process()
        process.executableURL = BinaryRunner.binary
        process.arguments = ["serve", "--config", config, "--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = BinaryRunner.packageRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return BinaryRunner.Result(status: process.terminationStatus, stdout: "", stderr: stderr)
    }
}
