import Foundation
import TestScratchSupport
import Testing

/// `serve --log-level`: events below the level are not written; those at or above it are.
@Suite("serve --log-level", .serialized)
struct LogLevelTests {
    /// A port that was free a moment ago (the daemon at `--log-level error` prints no `listening`
    /// line to learn a port 0 binding from, so the test picks one).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw DaemonError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("at --log-level error, info events such as listening are not printed and an error event is")
    func errorLevelDropsInfo() throws {
        let config = try BinaryRunner.temporaryFile(defaultConfig)
        let port = try Self.freePort()
        let process = Process()
        process.executableURL = BinaryRunner.binary
        process.arguments = ["serve", "--config", config, "--listen", "127.0.0.1:\(port)", "--log-level", "error"]
        process.currentDirectoryURL = BinaryRunner.packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NAVPOLICY_ADMIN_TOKEN")
        environment.removeValue(forKey: "NAVPOLICY_INTAKE_TOKEN")
        environment["NAVPOLICY_DATA_DIR"] = TestScratch.root + "/navpolicyd-data-\(UUID().uuidString)"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Up when it answers (bounded wait; no line on stderr to wait for at this level).
        let deadline = Date().addingTimeInterval(20)
        var healthy = false
        while !healthy, Date() < deadline, process.isRunning {
            healthy = (try? Curl.request("http://127.0.0.1:\(port)/healthz"))?.status == 200
            if !healthy { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(healthy, "the daemon answers /healthz")

        // An error event: a reload of an invalid file is rejected (the old policy keeps serving).
        try Data(#"{"defaultDecision":"maybe"}"#.utf8).write(to: URL(fileURLWithPath: config))
        let reload = try Curl.request("http://127.0.0.1:\(port)/v1/policy/reload", ["-X", "POST"])
        #expect(reload.status == 422, "the reload is refused as invalid-config")
        process.interrupt()
        process.waitUntilExit()
        let lines = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.contains(#""event":"policy.reload_failed""#) && $0.contains(#""level":"error""#) }, "\(lines)")
        #expect(!lines.contains { $0.contains(#""event":"listening""#) }, "\(lines)")
        #expect(!lines.contains { $0.contains(#""event":"http.started""#) || $0.contains(#""event":"shutdown.finished""#) })
        #expect(lines.allSatisfy { $0.contains(#""level":"error""#) }, "\(lines)")
    }

    @Test("an unknown level is a usage error, exit 2")
    func unknownLevel() throws {
        let result = try BinaryRunner.run(["serve", "--log-level", "verbose"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--log-level takes debug, info, warning or error, not 'verbose'"))
    }
}
