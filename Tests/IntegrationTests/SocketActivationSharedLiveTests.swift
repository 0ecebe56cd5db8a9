import Foundation
import Testing

/// Issue 38, item 14: one socket passed as both `api` and `admin` (a launcher that hands one
/// socket twice) served the admin routes on the API's address. The daemon now refuses to start.
@Suite("socket activation: one socket as api and admin, live")
struct SocketActivationSharedLiveTests {
    /// Binds one listening socket on 127.0.0.1, passes it as descriptors 3 and 4 named
    /// `api:admin`, and execs the daemon, as `SystemdIntegrationTests.activator` does.
    static let activator = """
        import fcntl, os, socket, sys
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        held = fcntl.fcntl(s.fileno(), fcntl.F_DUPFD, 100)
        s.close()
        os.dup2(held, 3, inheritable=True)
        os.dup2(held, 4, inheritable=True)
        os.close(held)
        os.environ["LISTEN_FDS"] = "2"
        os.environ["LISTEN_FDNAMES"] = "api:admin"
        os.environ["LISTEN_PID"] = str(os.getpid())
        os.execv(sys.argv[1], sys.argv[1:])
        """

    @Test("one socket named api and admin is a start-up error, exit 2, before anything is served")
    func oneSocketTwice() throws {
        let config = try BinaryRunner.temporaryFile(#"{"handlers": []}"#)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", Self.activator, BinaryRunner.binary.path, "serve", "--config", config, "--listen", "127.0.0.1:0",
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // A daemon that starts anyway would never exit: it is stopped after a generous wait.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            Issue.record("the daemon started on one socket named api and admin")
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(stderr)")
        #expect(stderr.contains(#"the sockets named "admin" and "api" are one listening socket"#), "\(stderr)")
    }
}
