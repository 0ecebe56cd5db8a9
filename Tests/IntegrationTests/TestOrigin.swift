import Foundation

/// scripts/test-origin.py on a free loopback port: the web app behind nginx or the proxy.
/// Its request log tells tests exactly which requests reached the origin.
final class TestOrigin: Sendable {
    let logPath: String
    private let server: ScriptedServer

    var port: Int { server.port }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init() throws {
        logPath =
            FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-origin-\(UUID().uuidString).log")
            .path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        server = try ScriptedServer.launch("test-origin.py", arguments: ["--log", logPath], describedAs: "test origin")
    }

    deinit {
        // The server (a stored property) is killed after this body runs; the log goes now.
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// "METHOD TARGET" of every request the origin received, in order.
    var requests: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// True when any received target contains `fragment`.
    func saw(_ fragment: String) -> Bool { requests.contains { $0.contains(fragment) } }
}

/// A port that was free a moment ago (for programs that cannot report the port they bound).
func freeLoopbackPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw DaemonError("socket() failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
        }
    }
    guard bound else { throw DaemonError("bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits until something accepts TCP connections on `port`.
func waitForListener(port: Int, timeout: TimeInterval = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if (try? RawConnection(port: port)) != nil { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return false
}
