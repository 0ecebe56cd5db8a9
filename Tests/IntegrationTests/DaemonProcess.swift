import Foundation
import Synchronization
import TestScratchSupport
import Testing

/// A real `navpolicyd serve` on a free loopback port, driven the way users drive it.
///
/// Starts the binary with `--listen 127.0.0.1:0` and learns the port from its `listening`
/// log line, so parallel tests never race for ports.
final class DaemonProcess: Sendable {
    let process: Process
    let port: Int
    let configPath: String
    private let stderrLines: LineCollector
    /// The data directory this instance made up (nil when `environment` named one): removed once
    /// the process has exited, never while it may still write.
    let ownedDataDirectory: String?

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Log lines written so far (JSON objects, one per line).
    var logLines: [String] { stderrLines.lines }

    /// Starts a daemon on `config` (JSON text written to a temp file unless `configPath` is given).
    /// Each daemon gets its own data directory (so its intake database), unless `environment`
    /// names one: tests never share or leave state in the package's `var/`.
    /// `launcher` runs the binary through another program (its executable and the arguments
    /// before the binary's path), as systemd would with sockets it passes.
    init(
        config: String? = nil, configPath: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
        launcher: (executable: URL, arguments: [String])? = nil
    ) throws {
        let path = try configPath ?? BinaryRunner.temporaryFile(config ?? defaultConfig)
        self.configPath = path
        let process = Process()
        let serveArguments = ["serve", "--config", path, "--listen", "127.0.0.1:0"] + arguments
        if let launcher {
            process.executableURL = launcher.executable
            process.arguments = launcher.arguments + [BinaryRunner.binary.path] + serveArguments
        } else {
            process.executableURL = BinaryRunner.binary
            process.arguments = serveArguments
        }
        process.currentDirectoryURL = BinaryRunner.packageRoot
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NAVPOLICY_ADMIN_TOKEN")
        env.removeValue(forKey: "NAVPOLICY_INTAKE_TOKEN")
        let dataDirectory = TestScratch.path("navpolicyd-data")
        env["NAVPOLICY_DATA_DIR"] = dataDirectory
        env.merge(environment) { _, new in new }
        let ownedDataDirectory = environment["NAVPOLICY_DATA_DIR"] == nil ? dataDirectory : nil
        self.ownedDataDirectory = ownedDataDirectory
        process.environment = env
        let errPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = FileHandle.nullDevice
        let lines = LineCollector()
        errPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            lines.ingest(data)
            if data.isEmpty { handle.readabilityHandler = nil }
        }
        try process.run()
        self.process = process
        self.stderrLines = lines
        // Generous: a sanitized daemon compiling a large chain on a loaded machine is slow to
        // listen, and only a failing start ever waits this long.
        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = lines.lines.lazy.compactMap(Self.port(fromListeningLine:)).first
            if found == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let found else {
            Self.stop(process, signal: SIGTERM)
            if let ownedDataDirectory { try? FileManager.default.removeItem(atPath: ownedDataDirectory) }
            throw DaemonError("daemon did not start: \(lines.lines.joined(separator: "\n"))")
        }
        self.port = found
    }

    deinit {
        if process.isRunning { Self.stop(process, signal: SIGINT) }
        if let ownedDataDirectory { try? FileManager.default.removeItem(atPath: ownedDataDirectory) }
    }

    /// Sends `signal`, waits up to 30 s for the exit, then SIGKILLs: a daemon that ignores its
    /// stop fails the test that follows rather than hanging the whole run (a CI run once timed
    /// out here).
    private static func stop(_ process: Process, signal signalNumber: Int32) {
        kill(process.processIdentifier, signalNumber)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private static func port(fromListeningLine line: String) -> Int? {
        guard line.contains(#""event":"listening""#), let range = line.range(of: #""address":"127.0.0.1:"#) else {
            return nil
        }
        return Int(line[range.upperBound...].prefix(while: \.isNumber))
    }

    /// The port in the `address` of the first `event` log line (`admin.listening`,
    /// `proxy.listening`), waiting for it; nil when it never appears.
    func loggedPort(_ event: String, timeout: TimeInterval = 10) -> Int? {
        guard let line = waitForLog(timeout: timeout, { $0.contains(#""event":"\#(event)""#) }),
            let range = line.range(of: #""address":"127.0.0.1:"#)
        else { return nil }
        return Int(line[range.upperBound...].prefix(while: \.isNumber))
    }

    /// Sends a signal and, for TERM/INT, waits for the exit status.
    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    func waitForExit(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// The log lines satisfying `predicate` once there are `count` of them (or after `timeout`,
    /// whatever is there): a line is written after the client's answer, so counting at once races.
    func logLines(count: Int, timeout: TimeInterval = 5, _ predicate: (String) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var found = logLines.filter(predicate)
        while found.count < count, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            found = logLines.filter(predicate)
        }
        return found
    }

    /// Waits until a log line satisfies `predicate`.
    func waitForLog(timeout: TimeInterval = 10, _ predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = logLines.first(where: predicate) { return line }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }
}

/// Splits a byte stream into lines as it arrives.
final class LineCollector: Sendable {
    private let state = Mutex<(lines: [String], pending: [UInt8])>(([], []))

    var lines: [String] { state.withLock { $0.lines } }

    func ingest(_ data: Data) {
        state.withLock { state in
            state.pending.append(contentsOf: data)
            while let newline = state.pending.firstIndex(of: 0x0A) {
                state.lines.append(String(decoding: state.pending[..<newline], as: UTF8.self))
                state.pending.removeSubrange(...newline)
            }
        }
    }
}

extension DaemonProcess {
    /// `GET /v1/decide` for `url`, percent-encoded whole into the query (so its own `%2F`,
    /// `?` and `#` stay part of the URL); `explain=true` when asked.
    func decide(_ url: String, explain: Bool = false) throws -> Curl.Response {
        let query = try #require(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        return try Curl.request(baseURL + "/v1/decide?" + (explain ? "explain=true&" : "") + "url=" + query)
    }
}

struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The shipped default policy, read from config/navpolicy.json.
let defaultConfig: String = {
    let url = BinaryRunner.packageRoot.appendingPathComponent("config/navpolicy.json")
    return (try? String(contentsOf: url, encoding: .utf8)) ?? "{}"
}()
