import Foundation
import TestScratchSupport

/// Runs the built `navpolicyd` the way a user does, from the package root.
enum BinaryRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The package root: two levels above this file's folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `$NAVPOLICYD_BINARY`, else the binary next to the test bundle, else `.build/debug/navpolicyd`.
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["NAVPOLICYD_BINARY"] { return URL(fileURLWithPath: path) }
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("navpolicyd")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        let nextToRunner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("navpolicyd")
        if FileManager.default.isExecutableFile(atPath: nextToRunner.path) { return nextToRunner }
        return packageRoot.appendingPathComponent(".build/debug/navpolicyd")
    }()

    /// Runs the binary (or `executable`) to completion with `arguments`, optional stdin and
    /// extra environment, in `directory` (the package root unless given).
    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], executable: URL = binary,
        directory: URL = packageRoot
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NAVPOLICY_CONFIG")
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting so a chatty process cannot block on a full pipe.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Writes `contents` to a fresh temporary file and returns its path.
    static func temporaryFile(_ contents: String, suffix: String = ".json") throws -> String {
        let url = URL(fileURLWithPath: TestScratch.path("navpolicyd-test", suffix: suffix))
        try Data(contents.utf8).write(to: url)
        return url.path
    }
}
