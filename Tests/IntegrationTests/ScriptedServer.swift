import Foundation

/// A Python helper server from scripts/ that binds a free loopback port and prints
/// "listening PORT" as its first line (test-origin.py, bundle-origin.py). It owns the process:
/// the server is killed when the last reference goes.
final class ScriptedServer: Sendable {
    let process: Process
    let port: Int
    /// Must be kept for the server's lifetime: a pipe released early closes its descriptor
    /// while other tests spawn processes, and a recycled descriptor number breaks their spawn.
    let output: Pipe

    private init(process: Process, port: Int, output: Pipe) {
        self.process = process
        self.port = port
        self.output = output
    }

    deinit {
        // SIGKILL: the test runner blocks SIGTERM, and children inherit the blocked mask.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Starts `scripts/<script>` with `arguments` and waits until it is bound.
    static func launch(_ script: String, arguments: [String], describedAs what: String) throws -> ScriptedServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", BinaryRunner.packageRoot.appendingPathComponent("scripts/\(script)").path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // read(2) byte by byte: FileHandle.readData(ofLength:) waits for EOF on Linux.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        let descriptor = out.fileHandleForReading.fileDescriptor
        while line.last != 0x0A, read(descriptor, &byte, 1) == 1 { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening "), let port = Int(text.dropFirst(10).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw DaemonError("\(what) did not start: \(text)")
        }
        return ScriptedServer(process: process, port: port, output: out)
    }
}
