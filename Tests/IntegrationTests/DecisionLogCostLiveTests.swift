import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// Whether the daemon under test is an optimized build without sanitizers: the allocations of
/// a debug build (unspecialized generics, ~120 per GET decide) say nothing about the product's,
/// and under the sanitizers malloc belongs to their runtime. The test bundle runs the daemon
/// built beside it, so an optimized bundle (`make test-release-lifetimes`) runs an optimized
/// daemon; a debug bundle pointed at a release daemon (`NAVPOLICYD_BINARY`) says so with
/// `NAVPOLICYD_BINARY_OPTIMIZED=1`.
private let allocationsCountable: Bool = {
    #if NAVPOLICYD_SANITIZER_LOCKS
        return false
    #elseif DEBUG
        return ProcessInfo.processInfo.environment["NAVPOLICYD_BINARY_OPTIMIZED"] == "1"
    #else
        return true
    #endif
}()

/// What the decision log costs a request (issue 28: GET decide with the log on ≥ 0.9× off),
/// held from outside by a count that does not depend on the machine's load: heap allocations
/// of the whole daemon (every thread), counted by bench/malloc-count.c preloaded into it.
///
/// A logged decision writes its line into a per-thread buffer, redacts its URLs in place and
/// hands the line to the writer's double buffer, so a GET decide with the log on allocates
/// exactly what one with the log off does; the writer thread's batches allocate nothing
/// either once their buffers have grown. A redacted line used to cost 3.5 allocations
/// (the URL copied to an array, the redacted bytes, a String, a copy of the decision).
@Suite("decision log cost, live", .serialized, .enabled(if: allocationsCountable), .tags(.live, .optimized))
struct DecisionLogCostLiveTests {
    static let url = "https://app.example.com/oauth/callback?code=SECRET123&state=xyz&email=a%40b.example"

    /// bench/malloc-count.c built into the test scratch directory, once.
    static let counter: Result<String, DaemonError> = {
        let library = TestScratch.path("malloc-count", suffix: ".so")
        let source = BinaryRunner.packageRoot.appendingPathComponent("bench/malloc-count.c").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        process.arguments = ["-O2", "-shared", "-fPIC", "-o", library, source]
        do {
            try process.run()
        } catch {
            return .failure(DaemonError("cannot run cc: \(error)"))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return .failure(DaemonError("cc \(source) failed")) }
        return .success(library)
    }()

    /// Allocations of a daemon run that answers `requests` GET decides for ``url`` over one
    /// keep-alive connection, then stops.
    static func allocations(config: String, log: Bool, requests: Int) throws -> Int {
        let library = try counter.get()
        let out = TestScratch.path("malloc-count-out")
        let logPath = TestScratch.path("decision-log-cost", suffix: ".ndjson")
        let daemon = try DaemonProcess(
            config: config, arguments: log ? ["--decision-log", logPath] : [],
            environment: ["LD_PRELOAD": library, "MALLOC_COUNT_OUT": out])
        let query = try #require(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let requestList = String(repeating: "url = \"\(daemon.baseURL)/v1/decide?url=\(query)\"\n", count: requests)
        let listPath = try BinaryRunner.temporaryFile(requestList, suffix: ".curl")
        let answers = try Curl.standardOutput(of: "/usr/bin/curl", ["-s", "--config", listPath])
        #expect(answers.components(separatedBy: #""decision":"allow""#).count - 1 == requests, "every request answered")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        if log {
            let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == requests, "every decision logged")
            if config.contains("redactQueryParameters") {
                #expect(lines.allSatisfy { $0.contains(#""redacted":true"#) && !$0.contains("SECRET123") }, "every line redacted")
            }
            try? FileManager.default.removeItem(atPath: logPath)
        }
        let report = try String(contentsOfFile: out, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: out)
        let line = try #require(report.split(separator: "\n").first { $0.hasPrefix("allocations ") })
        return try #require(Int(line.dropFirst("allocations ".count)))
    }

    /// Allocations per request: the difference between a run of `base + more` and one of `base`
    /// requests, over `more` (start-up, config load and shutdown cancel out).
    static func perRequest(config: String, log: Bool, base: Int = 100, more: Int = 1000) throws -> Double {
        let small = try allocations(config: config, log: log, requests: base)
        let large = try allocations(config: config, log: log, requests: base + more)
        return Double(large - small) / Double(more)
    }

    static let redactingConfig = """
        {"defaultDecision": "allow", "decisionLog": {"redactQueryParameters": ["code", "state", "email"]},
         "handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}]}
        """

    @Test("GET /v1/decide allocates no more with the log on, plain or every line redacted, than with it off")
    func noAllocationPerLoggedDecision() throws {
        let plainConfig = Self.plainConfig
        let off = try Self.perRequest(config: plainConfig, log: false)
        let plain = try Self.perRequest(config: plainConfig, log: true)
        let redacted = try Self.perRequest(config: Self.redactingConfig, log: true)
        // A timer (the config watcher) allocates a little during the longer runs: half an
        // allocation per request is far below one per line and far above that noise.
        #expect(plain - off < 0.5, "plain log: \(plain) allocations/request vs \(off) off")
        #expect(redacted - off < 0.5, "redacted log: \(redacted) allocations/request vs \(off) off")
    }

    /// The same policy without `decisionLog`: nothing to redact.
    static let plainConfig = """
        {"defaultDecision": "allow",
         "handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}]}
        """
}
