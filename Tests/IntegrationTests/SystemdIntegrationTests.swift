import Foundation
import TestSelection
import Testing

/// `Type=notify`, the watchdog and socket activation, driven as systemd drives them but
/// without systemd: the test owns the notify socket and passes pre-bound listening sockets.
@Suite("systemd protocols", .serialized, .tags(.live, .sanitizerRelevant))
struct SystemdIntegrationTests {
    /// A datagram socket standing in for systemd's notify socket (a path, or `@abstract`).
    final class NotifySocket {
        let name: String
        private let fd: Int32

        init(abstract: Bool) throws {
            let unique = "navpolicyd-notify-\(UUID().uuidString.prefix(8))"
            name = abstract ? "@" + unique : NSTemporaryDirectory() + unique + ".sock"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(name.utf8)
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[index] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard bound == 0 else { throw DaemonError("bind(\(name)) failed: errno \(errno)") }
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit {
            close(fd)
            if !name.hasPrefix("@") { unlink(name) }
        }

        /// The next datagram, waiting at most `timeout` seconds.
        func receive(timeout: TimeInterval = 10) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            }
            return nil
        }

        /// The next datagram that is not a watchdog ping.
        func receiveState(timeout: TimeInterval = 10) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                guard let message = receive(timeout: deadline.timeIntervalSinceNow) else { return nil }
                if message != "WATCHDOG=1" { return message }
            }
            return nil
        }
    }

    @Test("Type=notify: READY=1, RELOADING=1 with MONOTONIC_USEC then READY=1 around a reload, STOPPING=1")
    func notifySequence() throws {
        let notify = try NotifySocket(abstract: false)
        let daemon = try DaemonProcess(
            config: #"{"server": {"watchConfig": false}, "handlers": []}"#, environment: ["NOTIFY_SOCKET": notify.name])
        #expect(notify.receiveState() == "READY=1")
        daemon.signal(SIGHUP)
        let reloading = try #require(notify.receiveState())
        let lines = reloading.split(separator: "\n")
        #expect(lines.first == "RELOADING=1", "\(reloading)")
        let microseconds = lines.dropFirst().first.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil }
        #expect((microseconds ?? 0) > 0, "\(reloading)")
        #expect(notify.receiveState() == "READY=1")
        daemon.signal(SIGTERM)
        #expect(notify.receiveState() == "STOPPING=1")
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.logLines.contains { $0.contains(#""systemdNotify":true"#) })
    }

    @Test("an abstract @NOTIFY_SOCKET gets READY=1, and WATCHDOG_USEC brings WATCHDOG=1 pings")
    func abstractSocketAndWatchdog() throws {
        let notify = try NotifySocket(abstract: true)
        let daemon = try DaemonProcess(
            config: #"{"handlers": []}"#, environment: ["NOTIFY_SOCKET": notify.name, "WATCHDOG_USEC": "200000"])
        var received: [String] = []
        while received.filter({ $0 == "WATCHDOG=1" }).count < 2, let message = notify.receive(timeout: 5) {
            received.append(message)
        }
        #expect(received.contains("READY=1"), "\(received)")
        #expect(received.filter { $0 == "WATCHDOG=1" }.count >= 2, "\(received)")
        withExtendedLifetime(daemon) {}
    }

    /// The start-up failure of a daemon that should not start (bounded: a daemon that starts
    /// anyway is an expectation failure, then stopped), else nil.
    static func startFailure(
        environment: [String: String], launcher: (executable: URL, arguments: [String])? = nil
    ) -> String? {
        do {
            let daemon = try DaemonProcess(config: #"{"handlers": []}"#, environment: environment, launcher: launcher)
            Issue.record("the daemon started: \(daemon.logLines.suffix(3))")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a NOTIFY_SOCKET that is not a path or @name is a usage error")
    func badNotifySocket() throws {
        let failure = Self.startFailure(environment: ["NOTIFY_SOCKET": "relative/path"])
        #expect(failure?.contains(#"NOTIFY_SOCKET "relative/path" is neither an absolute path nor @abstract"#) == true)
    }

    /// Binds listening sockets on 127.0.0.1 (names from `$TEST_SOCKET_NAMES`), moves them to
    /// descriptors 3, 4, … and execs the daemon with LISTEN_FDS, LISTEN_FDNAMES and LISTEN_PID
    /// (this process's pid, which exec keeps; `$TEST_LISTEN_PID_OFFSET` makes it another
    /// process's), as systemd does; logs the ports as a `test.sockets` JSON line first. With
    /// `$TEST_SOCKETS_NONBLOCKING` set the sockets are non-blocking (systemd's `NonBlocking=yes`).
    static let activator = """
        import fcntl, json, os, socket, sys
        names = os.environ["TEST_SOCKET_NAMES"].split(",")
        held, ports = [], {}
        for index, name in enumerate(names):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            s.listen(64)
            if os.environ.get("TEST_SOCKETS_NONBLOCKING"):
                s.setblocking(False)
            ports[name] = s.getsockname()[1]
            held.append(fcntl.fcntl(s.fileno(), fcntl.F_DUPFD, 100 + index))
            s.close()
        for index, fd in enumerate(held):
            os.dup2(fd, 3 + index, inheritable=True)
            os.close(fd)
        os.environ["LISTEN_FDS"] = str(len(names))
        os.environ["LISTEN_FDNAMES"] = ":".join(names)
        os.environ["LISTEN_PID"] = str(os.getpid() + int(os.environ.get("TEST_LISTEN_PID_OFFSET", "0")))
        sys.stderr.write(json.dumps({"event": "test.sockets", **ports}, separators=(",", ":")) + "\\n")
        sys.stderr.flush()
        os.execv(sys.argv[1], sys.argv[1:])
        """

    static func activated(
        names: [String], pidOffset: Int = 0, nonBlocking: Bool = false, config: String = #"{"handlers": []}"#
    ) throws -> (DaemonProcess, [String: Int]) {
        var environment = ["TEST_SOCKET_NAMES": names.joined(separator: ","), "TEST_LISTEN_PID_OFFSET": String(pidOffset)]
        if nonBlocking { environment["TEST_SOCKETS_NONBLOCKING"] = "1" }
        let daemon = try DaemonProcess(
            config: config,
            environment: environment,
            launcher: (URL(fileURLWithPath: "/usr/bin/python3"), ["-c", activator]))
        let line = try #require(daemon.logLines.first { $0.contains(#""event":"test.sockets""#) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        var ports: [String: Int] = [:]
        for name in names { ports[name] = object[name] as? Int }
        return (daemon, ports)
    }

    @Test("socket activation: the API, admin and proxy listeners serve the passed sockets and bind none of their own")
    func socketActivation() throws {
        let (daemon, ports) = try Self.activated(names: ["api", "admin", "proxy"])
        let api = try #require(ports["api"])
        let admin = try #require(ports["admin"])
        let proxy = try #require(ports["proxy"])
        #expect(daemon.port == api, "the API listener is the passed socket, not a bind of --listen 127.0.0.1:0")
        #expect(try Curl.request("http://127.0.0.1:\(api)/v1/decide?url=https://a.example/").status == 200)
        #expect(try Curl.request("http://127.0.0.1:\(api)/metrics").status == 404, "metrics moved to the admin socket")
        #expect(try Curl.request("http://127.0.0.1:\(admin)/metrics").status == 200)
        #expect(try Curl.request("http://127.0.0.1:\(admin)/readyz").status == 200)
        let proxied = try Curl.request("http://127.0.0.1:\(proxy)/", ["-H", "Host: a.example"])
        #expect(proxied.status > 0, "the proxy listener answers on its passed socket")
        #expect(daemon.logLines.contains { $0.contains(#""socketActivated":true"#) })
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let stopped = daemon.logLines.filter { $0.contains("http.accepting_stopped") }
        #expect(stopped.count == 3)
        #expect(stopped.allSatisfy { $0.contains(#""newConnectionsRefused":false"#) }, "systemd's sockets keep listening")
    }

    /// The gRPC listener's accept thread waits in accept(2): a passed socket is checked and made
    /// blocking first (NetworkSockets' `ListenSocket.adopt`), as the HTTP listeners' is made
    /// non-blocking; served as passed, a non-blocking one ended the accept loop at its first
    /// EAGAIN and the port took connections nobody answered.
    @Test("socket activation: the ext_authz gRPC listener serves a passed NonBlocking=yes socket")
    func grpcSocketActivation() throws {
        let (daemon, ports) = try Self.activated(names: ["api", "ext-authz-grpc"], nonBlocking: true)
        let grpc = try #require(ports["ext-authz-grpc"])
        // HTTP/1.1 on the h2c port gets the listener's own 505: a connection thread answered.
        // Twice: a first connection queued before the accept thread's first accept(2) was served
        // even from a non-blocking socket; the second finds the loop waiting (or, before, ended).
        for attempt in 1...2 {
            let answer = try Curl.request("http://127.0.0.1:\(grpc)/", ["--max-time", "5"])
            #expect(answer.status == 505, "connection \(attempt): the gRPC listener accepts on its passed socket")
        }
        #expect(daemon.port == ports["api"], "the API listener is its passed socket too")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("LISTEN_PID of another process: the passed sockets are not ours, the daemon binds --listen")
    func listenPIDMismatch() throws {
        let (daemon, ports) = try Self.activated(names: ["api"], pidOffset: 1)
        let passed = try #require(ports["api"])
        #expect(daemon.port != passed)
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
        #expect(daemon.logLines.contains { $0.contains(#""socketActivated":false"#) })
    }

    @Test("a passed socket with an unknown FileDescriptorName is a usage error")
    func unknownSocketName() throws {
        let failure = Self.startFailure(
            environment: ["TEST_SOCKET_NAMES": "api,metrics"],
            launcher: (URL(fileURLWithPath: "/usr/bin/python3"), ["-c", Self.activator]))
        // The names listed are the registered listeners' roles (ListenerKind.all), whatever their number.
        #expect(failure?.contains(#"socket "metrics" is not api, admin, proxy"#) == true, "\(failure ?? "")")
        #expect(failure?.contains("ext-authz") == true, "\(failure ?? "")")
    }
}
