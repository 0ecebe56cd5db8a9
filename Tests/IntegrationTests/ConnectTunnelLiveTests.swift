import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// A local TLS origin for the tunnel tests: `python3` with the `ssl` module, a self-signed
/// certificate for `allowed.test`, `blocked.test` and `other.test` made with `openssl req -x509`
/// when the origin starts. It reports every TCP connection (`ACCEPT`) and every ClientHello it
/// reads (`HELLO sni=…`), so a test can tell that a refused tunnel never reached it.
final class TLSOrigin {
    let directory: URL
    let port: Int
    private let process = Process()
    private let lines = LineCollector()

    /// The certificate (PEM), what clients pass to `--cacert`.
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    /// The certificate's public key (PEM), what `curl --pinnedpubkey` compares.
    var publicKey: String { directory.appendingPathComponent("pubkey.pem").path }

    init() throws {
        directory = URL(fileURLWithPath: TestScratch.path("navpolicyd-tls-origin"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        _ = try Curl.standardOutput(
            of: "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                "-subj", "/CN=allowed.test", "-addext", "subjectAltName=DNS:allowed.test,DNS:blocked.test,DNS:other.test",
            ])
        let pubkey = try Curl.standardOutput(of: "/usr/bin/openssl", ["x509", "-in", cert, "-pubkey", "-noout"])
        try pubkey.write(toFile: directory.appendingPathComponent("pubkey.pem").path, atomically: true, encoding: .utf8)
        let script = directory.appendingPathComponent("origin.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, cert, key]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let lines = lines
        out.fileHandleForReading.readabilityHandler = { lines.ingest($0.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        var found: Int?
        while found == nil, Date() < deadline {
            found = lines.lines.first { $0.hasPrefix("PORT ") }.flatMap { Int($0.dropFirst(5)) }
            if found == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw DaemonError("the TLS origin did not start")
        }
        port = found
    }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and the child inherits that mask.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, what Chromium's
    /// `--ignore-certificate-errors-spki-list` takes.
    func publicKeyHash() throws -> String {
        try Curl.standardOutput(
            of: "/bin/sh",
            ["-c", "openssl pkey -pubin -in '\(publicKey)' -outform der | openssl dgst -sha256 -binary | base64"]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// TCP connections the origin accepted.
    var accepted: Int { lines.lines.filter { $0 == "ACCEPT" }.count }
    /// The server names of the ClientHellos it read (`None` for none).
    var serverNames: [String] { lines.lines.filter { $0.hasPrefix("HELLO sni=") }.map { String($0.dropFirst(10)) } }

    private static let script = """
        import socket, ssl, sys, threading
        cert, key = sys.argv[1], sys.argv[2]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        lock = threading.Lock()
        def say(line):
            # One write per line under a lock: print() from threads interleaves text and newline.
            with lock:
                sys.stdout.write(line + "\\n"); sys.stdout.flush()
        def sni(sslobj, name, context):
            say("HELLO sni=%s" % name)
        ctx.sni_callback = sni
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0)); srv.listen(1024)
        say("PORT %d" % srv.getsockname()[1])
        def serve(conn):
            try:
                say("ACCEPT")
                tls = ctx.wrap_socket(conn, server_side=True)
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    chunk = tls.recv(4096)
                    if not chunk: return
                    data += chunk
                path = data.split(b" ")[1].decode()
                if path.startswith("/bulk?"):
                    n = int(path[6:]); block = b"x" * 65536
                    tls.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n" % n)
                    while n > 0:
                        m = min(n, len(block)); tls.sendall(block[:m]); n -= m
                else:
                    body = ("<html><body>origin %s</body></html>\\n" % path).encode()
                    tls.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\nContent-Length: %d\\r\\n"
                                b"Connection: close\\r\\n\\r\\n%s" % (len(body), body))
                tls.close()
            except Exception as e:
                say("ERROR %s" % e)
            finally:
                conn.close()
        while True:
            c, _ = srv.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """
}

/// HTTPS through the forward proxy (issue 29): `CONNECT` decided on its host before any byte
/// moves, the ClientHello's server name held to that host, ports limited by
/// `proxy.connect.ports`. Every test here failed on the code before tunnels (CONNECT got 501).
@Suite("CONNECT tunnels through the forward proxy", .serialized, .tags(.live, .sanitizerRelevant))
struct ConnectTunnelLiveTests {
    /// A policy that cancels `blocked.test`, with both names pinned to the origin and the
    /// origin's port allowed for CONNECT (unless `connect` says otherwise).
    static func config(origin: TLSOrigin, connect: String? = nil) -> String {
        let port = origin.port
        let connectSection = connect ?? #"{"ports": [443, \#(port)], "clientHelloTimeoutMilliseconds": 1500}"#
        return """
            {"defaultDecision": "allow", "handlers": [
              {"name": "no-blocked", "type": "cancel", "match": {"hosts": ["blocked.test"]}}
            ], "proxy": {"resolve": {"allowed.test:\(port)": "127.0.0.1", "blocked.test:\(port)": "127.0.0.1",
                                     "other.test:\(port)": "127.0.0.1"},
                         "connect": \(connectSection)}}
            """
    }

    /// `CONNECT target` on a raw connection and the answer: a refusal whole, a 200 up to the
    /// end of its head (the tunnel stays open).
    static func connect(_ target: String, proxyPort: Int) throws -> (RawConnection, Curl.Response) {
        let connection = try RawConnection(port: proxyPort)
        connection.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
        var received: [UInt8] = []
        while true {
            let chunk = connection.receive(maxBytes: 4096)
            received += chunk
            let text = String(decoding: received, as: UTF8.self)
            guard !chunk.isEmpty, let headEnd = text.range(of: "\r\n\r\n") else {
                if chunk.isEmpty { return (connection, Curl.parse(text)) }
                continue
            }
            let head = Curl.parse(String(text[..<headEnd.upperBound]))
            let length = head.headers["content-length"].flatMap(Int.init) ?? 0
            if head.status == 200 || text[headEnd.upperBound...].utf8.count >= length { return (connection, Curl.parse(text)) }
        }
    }

    @Test("an allowed host is tunnelled: curl sees the origin's own certificate and page")
    func allowedHostIsTunnelled() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let response = try Curl.request(
            "https://allowed.test:\(origin.port)/hello",
            [
                "-x", "127.0.0.1:\(proxyPort)", "--cacert", origin.certificate, "--pinnedpubkey", origin.publicKey,
                "--suppress-connect-headers",
            ])
        #expect(response.status == 200)
        #expect(response.body.contains("origin /hello"), "\(response.body)")
        #expect(origin.serverNames == ["allowed.test"])
        // The decision is logged like any other, on the host, with the method CONNECT.
        #expect(daemon.waitForLog { $0.contains(#""event":"proxy.tunnel_closed""#) && $0.contains("allowed.test") } != nil)
        // A tunnel's end is no libmicrohttpd warning ("Application reported internal error").
        #expect(!daemon.logLines.contains { $0.contains(#""event":"mhd.message""#) }, "\(daemon.logLines)")

        // The 200 carries the decision, as every proxy answer does.
        let (connection, established) = try Self.connect("allowed.test:\(origin.port)", proxyPort: proxyPort)
        _ = connection
        #expect(established.status == 200)
        #expect(established.headers["x-navigation-decision"] == "allow")
        #expect(established.headers["x-navigation-decision-id"] != nil)
    }

    @Test("a blocked host gets 403 on CONNECT with the decision's fields and a problem; the origin sees nothing")
    func blockedHostIsRefused() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let (connection, refused) = try Self.connect("blocked.test:\(origin.port)", proxyPort: proxyPort)
        #expect(refused.status == 403)
        #expect(refused.headers["x-navigation-decision"] == "cancel")
        #expect(refused.headers["x-navigation-handler"] == "no-blocked")
        #expect(refused.headers["x-navigation-decision-id"] != nil)
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(refused.headers["connection"] == "close")
        #expect(refused.body.contains("navigation-cancelled"), "\(refused.body)")
        // The socket is closed after the answer.
        #expect(connection.receive(maxBytes: 16).isEmpty)
        // Other spellings of the same host are the same host (case).
        for spelling in ["BLOCKED.test", "Blocked.Test"] {
            let (_, again) = try Self.connect("\(spelling):\(origin.port)", proxyPort: proxyPort)
            #expect(again.status == 403, "\(spelling)")
        }
        let viaCurl = try Curl.request(
            "https://blocked.test:\(origin.port)/", ["-x", "127.0.0.1:\(proxyPort)", "--cacert", origin.certificate])
        #expect(viaCurl.status == 403)
        #expect(origin.accepted == 0)
        #expect(origin.serverNames.isEmpty)
    }

    @Test("a ClientHello naming a blocked host inside a CONNECT to an allowed one never reaches the origin")
    func serverNameMustNameTheConnectHost() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        func handshake(_ serverName: [String]) throws -> String {
            try Curl.standardOutput(
                of: "/usr/bin/timeout",
                [
                    "10", "/usr/bin/openssl", "s_client", "-proxy", "127.0.0.1:\(proxyPort)", "-connect",
                    "allowed.test:\(origin.port)", "-CAfile", origin.certificate,
                ] + serverName)
        }
        // Fronting: CONNECT allowed.test, TLS to blocked.test (and to another allowed name).
        for names in [["-servername", "blocked.test"], ["-servername", "other.test"], ["-noservername"]] {
            let output = try handshake(names)
            #expect(!output.contains("BEGIN CERTIFICATE"), "\(names): \(output)")
        }
        #expect(origin.accepted == 0, "the origin saw a connection")
        #expect(origin.serverNames.isEmpty)
        // The refusal is logged after the tunnel closes: counting at once raced the last one under load.
        let refusals = daemon.logLines(count: 3) {
            $0.contains(#""event":"proxy.tunnel_refused""#) && $0.contains("sni-mismatch")
        }
        #expect(refusals.count == 3, "\(daemon.logLines.suffix(5))")

        // The control: the same handshake naming the CONNECT host (any case) goes through.
        for name in ["allowed.test", "ALLOWED.test"] {
            let output = try handshake(["-servername", name])
            #expect(output.contains("BEGIN CERTIFICATE"), "\(output)")
        }
        #expect(origin.serverNames == ["allowed.test", "ALLOWED.test"].map { $0 })
    }

    @Test("plain bytes in a tunnel are refused and never reach the origin")
    func plainBytesAreRefused() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let (connection, established) = try Self.connect("allowed.test:\(origin.port)", proxyPort: proxyPort)
        #expect(established.status == 200)
        connection.send("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
        // The tunnel is closed instead of relaying the plain request.
        #expect(connection.receive(maxBytes: 64).isEmpty)
        // A client that sends nothing is closed at the ClientHello deadline (1.5 s here).
        let started = Date()
        let (silent, open) = try Self.connect("allowed.test:\(origin.port)", proxyPort: proxyPort)
        #expect(open.status == 200)
        #expect(silent.receive(maxBytes: 64).isEmpty)
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(origin.accepted == 0)
        #expect(daemon.waitForLog { $0.contains(#""reason":"not-tls""#) } != nil)
        #expect(daemon.waitForLog { $0.contains(#""reason":"client-hello-timeout""#) } != nil)
    }

    @Test("ports outside proxy.connect.ports are refused; the default is 443 only")
    func portsAreLimited() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        for port in [22, 25, 8443] {
            let (_, refused) = try Self.connect("allowed.test:\(port)", proxyPort: proxyPort)
            #expect(refused.status == 403, "\(port)")
            #expect(refused.body.contains("connect-port-refused"), "\(port): \(refused.body)")
        }
        // Without proxy.connect the origin's port is not 443: refused before any decision.
        let defaults = try DaemonProcess(
            config: Self.config(origin: origin, connect: "{}"), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let (_, refused) = try Self.connect("allowed.test:\(origin.port)", proxyPort: try defaults.proxyPort())
        #expect(refused.status == 403)
        #expect(refused.body.contains("connect-port-refused"))
        #expect(refused.body.contains("443"))
        // Not host:port at all.
        for target in ["allowed.test", "user@allowed.test:443", "allowed.test:443/x", "allowed.test:0"] {
            let (_, bad) = try Self.connect(target, proxyPort: proxyPort)
            #expect(bad.status == 400, "\(target)")
        }
        #expect(origin.accepted == 0)
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains(#"navpolicyd_proxy_tunnel_refusals_total{reason="port"} 3"#), "\(metrics)")
        #expect(metrics.contains("navpolicyd_proxy_tunnels 0"))
    }

    @Test("an internal destination nobody pinned is refused after resolution, whatever its spelling")
    func internalDestinationsAreRefused() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        for host in ["127.0.0.1", "localhost", "0x7f.1", "[::ffff:127.0.0.1]", "[::1]"] {
            let (_, refused) = try Self.connect("\(host):\(origin.port)", proxyPort: proxyPort)
            #expect(refused.status == 403, "\(host)")
            #expect(refused.body.contains("internal-destination"), "\(host): \(refused.body)")
        }
        #expect(origin.accepted == 0)
    }

    @Test("per-client and total tunnel limits answer 429 and 503 while tunnels are open")
    func tunnelLimits() throws {
        let origin = try TLSOrigin()
        let connect = #"{"ports": [\#(origin.port)], "maxTunnelsPerIP": 2, "clientHelloTimeoutMilliseconds": 5000}"#
        let daemon = try DaemonProcess(
            config: Self.config(origin: origin, connect: connect), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let held = try (0..<2).map { _ in try Self.connect("allowed.test:\(origin.port)", proxyPort: proxyPort) }
        #expect(held.map(\.1.status) == [200, 200])
        let (_, third) = try Self.connect("allowed.test:\(origin.port)", proxyPort: proxyPort)
        #expect(third.status == 429)
        #expect(third.body.contains("tunnel-limit"))
        #expect(third.headers["x-navigation-decision"] == "allow")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains(#"navpolicyd_proxy_tunnel_refusals_total{reason="limit"} 1"#))

        // The total: one tunnel in all.
        let single = #"{"ports": [\#(origin.port)], "maxTunnels": 1, "clientHelloTimeoutMilliseconds": 5000}"#
        let small = try DaemonProcess(
            config: Self.config(origin: origin, connect: single), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let smallPort = try small.proxyPort()
        do {
            let (held, open) = try Self.connect("allowed.test:\(origin.port)", proxyPort: smallPort)
            #expect(open.status == 200)
            let (_, second) = try Self.connect("allowed.test:\(origin.port)", proxyPort: smallPort)
            #expect(second.status == 503)
            #expect(second.body.contains("proxy.connect.maxTunnels"))
            _ = held
        }
        // The slot comes back when that tunnel ends (its client closed before a ClientHello).
        var status = 0
        let deadline = Date().addingTimeInterval(5)
        while status != 200, Date() < deadline {
            status = try Self.connect("allowed.test:\(origin.port)", proxyPort: smallPort).1.status
            if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(status == 200)
    }

    @Test("200 concurrent tunnels all complete")
    func concurrentTunnels() throws {
        let origin = try TLSOrigin()
        let connect = #"{"ports": [\#(origin.port)], "maxTunnelsPerIP": 512}"#
        let daemon = try DaemonProcess(
            config: Self.config(origin: origin, connect: connect), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let count = 200
        let urls = (0..<count).flatMap { _ in ["-o", "/dev/null", "https://allowed.test:\(origin.port)/bulk?262144"] }
        let output = try Curl.standardOutput(
            of: "/usr/bin/curl",
            [
                "-s", "--parallel", "--parallel-immediate", "--parallel-max", "\(count)", "--max-time", "60",
                "-x", "127.0.0.1:\(proxyPort)", "--cacert", origin.certificate, "-w", "%{http_code} %{size_download}\\n",
            ] + urls)
        let results = output.split(separator: "\n")
        #expect(results.count == count)
        #expect(results.allSatisfy { $0 == "200 262144" }, "\(Set(results))")
        // The origin's report lines arrive through a pipe: give the last ones a moment.
        let deadline = Date().addingTimeInterval(5)
        while origin.accepted < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(origin.accepted == count)
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains("navpolicyd_proxy_tunnels_opened_total \(count)"), "\(metrics)")
    }

    @Test("Chromium loads an allowed HTTPS page through the proxy and not a blocked one")
    func chromium() throws {
        let origin = try TLSOrigin()
        let daemon = try DaemonProcess(config: Self.config(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let spki = try origin.publicKeyHash()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        func dumpDOM(_ url: String) throws -> String {
            try Curl.standardOutput(
                of: "/usr/bin/chromium",
                [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                    "--user-data-dir=\(profile.path)", "--proxy-server=http://127.0.0.1:\(proxyPort)",
                    // Trusts the test origin's key only (no CA is installed anywhere).
                    "--ignore-certificate-errors-spki-list=\(spki)", "--timeout=15000", "--dump-dom", url,
                ])
        }
        let allowed = try dumpDOM("https://allowed.test:\(origin.port)/welcome")
        #expect(allowed.contains("origin /welcome"), "\(allowed)")
        let blocked = try dumpDOM("https://blocked.test:\(origin.port)/secret")
        #expect(!blocked.contains("origin /secret"), "\(blocked)")
        // Chromium may open more than one connection to the allowed origin; none to the blocked.
        #expect(!origin.serverNames.isEmpty && origin.serverNames.allSatisfy { $0 == "allowed.test" }, "\(origin.serverNames)")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(!metrics.contains(#"navpolicyd_proxy_tunnel_refusals_total{reason="policy"} 0"#), "\(metrics)")
    }

    @Test("on SIGTERM tunnels drain: one that ends within server.drainTimeoutSeconds completes, a longer one is cut")
    func tunnelsDrain() throws {
        let origin = try TLSOrigin()
        let config = Self.config(origin: origin).replacingOccurrences(
            of: #""defaultDecision": "allow","#, with: #""defaultDecision": "allow", "server": {"drainTimeoutSeconds": 3},"#)
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        func download(bytes: Int, rate: String) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "--limit-rate", rate, "--max-time", "30",
                "-x", "127.0.0.1:\(proxyPort)", "--cacert", origin.certificate,
                "https://allowed.test:\(origin.port)/bulk?\(bytes)",
            ]
            process.standardOutput = Pipe()
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        let short = try download(bytes: 1 << 20, rate: "1M")  // about 1 s
        let long = try download(bytes: 64 << 20, rate: "1M")  // about a minute
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 15) != nil)
        let drained = Date().timeIntervalSince(started)
        #expect(drained >= 0.5 && drained < 10, "\(drained)")
        short.waitUntilExit()
        long.waitUntilExit()
        func output(_ process: Process) -> String {
            guard let pipe = process.standardOutput as? Pipe else { return "" }
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(output(short) == "200 \(1 << 20)")
        #expect(output(long) != "200 \(64 << 20)")
        #expect(long.terminationStatus != 0)
    }
}

/// TLS 1.3 HelloRetryRequest (third outside attack): the origin asks for a second ClientHello and
/// serves the host that one names, so a client could name an allowed host first and a blocked one
/// second. The origin is `openssl s_server` limited to P-256, the client a script that offers no
/// key share the first time (so the origin must ask again), then names a host of its choosing.
@Suite("CONNECT tunnels: the second ClientHello after a HelloRetryRequest", .serialized, .tags(.live, .sanitizerRelevant))
struct HelloRetryTunnelLiveTests {
    static let client = #"""
        import os, socket, struct, sys
        proxy, target, first, second = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
        def ext(kind, data): return struct.pack('>HH', kind, len(data)) + data
        def hello(name, share):
            sni = struct.pack('>BH', 0, len(name)) + name
            exts = b''.join([ext(0, struct.pack('>H', len(sni)) + sni), ext(43, b'\x02\x03\x04'),
                             ext(10, b'\x00\x02\x00\x17'), ext(13, b'\x00\x02\x04\x03'),
                             ext(51, struct.pack('>H', len(share)) + share)])
            body = b'\x03\x03' + os.urandom(32) + b'\x00' + b'\x00\x02\x13\x01' + b'\x01\x00' + struct.pack('>H', len(exts)) + exts
            message = b'\x01' + len(body).to_bytes(3, 'big') + body
            return b'\x16\x03\x01' + struct.pack('>H', len(message)) + message
        s = socket.create_connection(('127.0.0.1', proxy), timeout=5)
        s.sendall(f'CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n'.encode())
        head = b''
        while b'\r\n\r\n' not in head: head += s.recv(1)
        print('CONNECT', head.split(b'\r\n')[0].decode())
        s.sendall(hello(first.encode(), b''))
        record = s.recv(5)
        length = struct.unpack('>H', record[3:5])[0]
        server_hello = b''
        while len(server_hello) < length: server_hello += s.recv(length - len(server_hello))
        retry = bytes.fromhex('CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C')
        print('HRR' if server_hello[6:38] == retry else 'NO-HRR')
        # A P-256 share the origin accepts or refuses: either way it answers, if it gets the hello.
        share = struct.pack('>HH', 0x17, 65) + b'\x04' + os.urandom(64)
        s.sendall(b'\x14\x03\x03\x00\x01\x01' + hello(second.encode(), share))
        s.settimeout(3)
        answer = b''
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                answer += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        # The origin's ChangeCipherSpec after its HelloRetryRequest may come late: not an answer.
        while answer.startswith(b'\x14\x03\x03\x00\x01\x01'): answer = answer[6:]
        print('ANSWER', len(answer))
        """#

    @Test("a second ClientHello must name the CONNECT host too; one that does goes through")
    func secondHelloIsChecked() throws {
        let directory = URL(fileURLWithPath: TestScratch.path("navpolicyd-hrr"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        _ = try Curl.standardOutput(
            of: "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
                cert, "-days", "2", "-subj", "/CN=allowed.test",
            ])
        let port = try LogLevelTests.freePort()
        let origin = Process()
        origin.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        origin.arguments = [
            "s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-tls1_3", "-groups", "P-256", "-quiet",
        ]
        origin.standardOutput = FileHandle.nullDevice
        origin.standardError = FileHandle.nullDevice
        try origin.run()
        defer {
            kill(origin.processIdentifier, SIGKILL)
            origin.waitUntilExit()
        }
        Thread.sleep(forTimeInterval: 0.5)
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "no-blocked", "type": "cancel", "match": {"hosts": ["blocked.test"]}}
            ], "proxy": {"resolve": {"allowed.test:\(port)": "127.0.0.1"},
                         "connect": {"ports": [\(port)], "clientHelloTimeoutMilliseconds": 3000}}}
            """
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let script = directory.appendingPathComponent("client.py")
        try Self.client.write(to: script, atomically: true, encoding: .utf8)
        func run(second: String) throws -> String {
            try Curl.standardOutput(
                of: "/usr/bin/timeout",
                ["15", "/usr/bin/python3", script.path, "\(proxyPort)", "allowed.test:\(port)", "allowed.test", second])
        }
        // The control: the same name twice reaches the origin, which answers the second hello.
        let control = try run(second: "allowed.test")
        #expect(control.contains("HTTP/1.1 200") && control.contains("HRR"), "\(control)")
        #expect(!control.contains("ANSWER 0"), "\(control)")
        // Fronting through the retry: the tunnel is closed before the second hello is passed on.
        let fronted = try run(second: "blocked.test")
        #expect(fronted.contains("HRR") && fronted.contains("ANSWER 0"), "\(fronted)")
        let refusals = daemon.logLines(count: 1) {
            $0.contains(#""event":"proxy.tunnel_refused""#) && $0.contains("sni-mismatch") && $0.contains("HelloRetryRequest")
        }
        #expect(refusals.count == 1, "\(daemon.logLines.suffix(5))")
    }
}
