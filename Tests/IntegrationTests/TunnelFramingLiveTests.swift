import Foundation
import TestScratchSupport
import TestSelection
import Testing

/// scripts/tls-record-origin.py on a free loopback port: an origin that reads each connection
/// as a TLS origin's record layer does and logs every whole record, every ClientHello with the
/// server name it reads there, and a record left unfinished — what a real origin would act on.
final class RecordOrigin: Sendable {
    let logPath: String
    private let server: ScriptedServer

    var port: Int { server.port }

    /// `retry`: the first ClientHello is answered with a HelloRetryRequest; `modes`: more of
    /// the script's options (`--before-retry alert`, `--second-retry`).
    init(retry: Bool, modes: [String] = []) throws {
        logPath = TestScratch.path("navpolicyd-record-origin-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        server = try ScriptedServer.launch(
            "tls-record-origin.py", arguments: ["--log", logPath] + (retry ? ["--retry"] : []) + modes,
            describedAs: "record origin")
    }

    deinit { try? FileManager.default.removeItem(atPath: logPath) }

    var lines: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until every connection the origin accepted has ended (it has read all it got).
    func waitUntilQuiet(timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let lines = lines
            if lines.filter({ $0.hasPrefix("ACCEPT ") }).count == lines.filter({ $0.hasPrefix("END ") }).count { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The server names of the ClientHellos the origin read.
    var serverNames: [String] {
        lines.filter { $0.hasPrefix("HELLO ") }.compactMap { $0.split(separator: "=").last.map(String.init) }
    }
    /// The content types of the whole records the origin read, in order.
    var recordTypes: [Int] { lines.filter { $0.hasPrefix("RECORD ") }.compactMap { Int($0.split(separator: " ")[2]) } }
    /// Whether a connection ended inside a record: the origin got bytes no whole record holds.
    var sawPartialRecord: Bool { lines.contains { $0.hasPrefix("PARTIAL ") } }
}

/// Issue 38, item 1: the client's TLS record framing is tracked from its first byte until the
/// relay starts. Before, bytes pipelined after the first ClientHello went to the origin unread,
/// so after a HelloRetryRequest the proxy read a harmless second hello where the origin, still
/// inside a record opened before the retry, read one naming a host nobody decided. Each test
/// drives the real daemon with a client writing raw records and an origin that logs what its
/// record layer reads; each failed on the landed code (ae31f07).
@Suite("CONNECT tunnels: the client's TLS records are tracked until the relay", .serialized, .tags(.live, .sanitizerRelevant))
struct TunnelFramingLiveTests {
    // MARK: records as a client writes them

    static func record(_ type: UInt8, _ body: [UInt8], version: [UInt8] = [0x03, 0x03]) -> [UInt8] {
        [type] + version + [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A ClientHello handshake message naming `name`; `hidden` is the data of one more
    /// (unknown, ignored) extension at its end.
    static func helloMessage(_ name: String, hidden: [UInt8] = []) -> [UInt8] {
        func vector(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        let host = Array(name.utf8)
        var extensions: [UInt8] = [0x00, 0x00] + vector(vector([0x00] + vector(host)))
        extensions += [0x00, 0x2B] + vector([0x02, 0x03, 0x04])  // supported_versions: TLS 1.3
        extensions += [0xFF, 0xAA] + vector(hidden)
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0xAB, count: 32) + [0x00]
        body += [0x00, 0x02, 0x13, 0x01, 0x01, 0x00] + vector(extensions)
        return [0x01, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static func hello(_ name: String) -> [UInt8] { record(0x16, helloMessage(name), version: [0x03, 0x01]) }
    static let changeCipherSpec = record(0x14, [0x01])

    // MARK: the setting

    static func config(_ origin: RecordOrigin) -> String {
        """
        {"defaultDecision": "allow", "handlers": [
          {"name": "no-blocked", "type": "cancel", "match": {"hosts": ["blocked.test"]}}
        ], "proxy": {"resolve": {"allowed.test:\(origin.port)": "127.0.0.1", "blocked.test:\(origin.port)": "127.0.0.1"},
                     "connect": {"ports": [\(origin.port)], "clientHelloTimeoutMilliseconds": 3000}}}
        """
    }

    /// A tunnel to allowed.test, open (the 200 read).
    static func tunnel(_ origin: RecordOrigin, _ daemon: DaemonProcess) throws -> RawConnection {
        let (connection, established) = try ConnectTunnelLiveTests.connect(
            "allowed.test:\(origin.port)", proxyPort: try daemon.proxyPort())
        #expect(established.status == 200)
        return connection
    }

    /// What the client reads next: the origin's answer passed on, or nothing when closed.
    static func answer(_ connection: RawConnection) -> [UInt8] { connection.receive(maxBytes: 4096) }

    // MARK: the tests

    @Test("the issue's attack: a record opened before the retry hides a second ClientHello naming a blocked host")
    func secondHelloHiddenAcrossTheRetry() throws {
        let origin = try RecordOrigin(retry: true)
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        // What the proxy would read after the retry: a ChangeCipherSpec and a hello naming allowed.test.
        let decoy = Self.changeCipherSpec + Self.hello("allowed.test")
        // What the origin reads: one handshake record, opened before the retry, holding a hello
        // naming blocked.test whose last (ignored) extension carries the decoy.
        let hidden = Self.helloMessage("blocked.test", hidden: decoy)
        let opened = hidden.dropLast(decoy.count)
        let header: [UInt8] = [0x16, 0x03, 0x03, UInt8(hidden.count >> 8), UInt8(hidden.count & 0xFF)]
        // The opening record in the same write as the first hello, and split over the answer.
        for (withHello, afterAnswer) in [
            (header + opened, [UInt8]()), (Array(header.prefix(3)), Array(header.dropFirst(3)) + opened),
        ] {
            let client = try Self.tunnel(origin, daemon)
            client.send(bytes: Self.hello("allowed.test") + withHello)
            if !Self.answer(client).isEmpty {
                client.send(bytes: afterAnswer)
                client.send(bytes: decoy)
                _ = Self.answer(client)
            }
            #expect(Self.answer(client).isEmpty, "the tunnel stayed open")
        }
        origin.waitUntilQuiet()
        #expect(!origin.serverNames.contains("blocked.test"), "the origin read: \(origin.lines)")
        #expect(origin.serverNames.allSatisfy { $0 == "allowed.test" }, "\(origin.lines)")
        #expect(!origin.sawPartialRecord, "\(origin.lines)")
        let refusals = daemon.logLines(count: 2) { $0.contains(#""event":"proxy.tunnel_refused""#) }
        #expect(refusals.count == 2, "\(daemon.logLines.suffix(4))")
    }

    @Test("records pipelined before the origin answered — partial handshake, partial or whole application data — never reach it")
    func pipelinedRecordsAreRefused() throws {
        let origin = try RecordOrigin(retry: false)
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let applicationData = Self.record(0x17, [UInt8](repeating: 0x42, count: 64))
        let pipelined: [(sent: [UInt8], rest: [UInt8])] = [
            (Array(applicationData.prefix(15)), Array(applicationData.dropFirst(15))),
            (applicationData, []),
            (Array(Self.hello("allowed.test").prefix(20)), Array(Self.hello("allowed.test").dropFirst(20))),
            // A ChangeCipherSpec not whole when the origin answers.
            (Array(Self.changeCipherSpec.prefix(3)), Array(Self.changeCipherSpec.dropFirst(3)) + applicationData),
        ]
        for (sent, rest) in pipelined {
            let client = try Self.tunnel(origin, daemon)
            client.send(bytes: Self.hello("allowed.test") + sent)
            if !Self.answer(client).isEmpty { client.send(bytes: rest) }
            #expect(Self.answer(client).isEmpty, "the tunnel stayed open after \(sent.prefix(6))")
        }
        origin.waitUntilQuiet()
        #expect(!origin.recordTypes.contains(0x17), "the origin read application data: \(origin.lines)")
        #expect(!origin.sawPartialRecord, "\(origin.lines)")
        #expect(origin.serverNames.count == origin.recordTypes.count, "only whole hellos reached it: \(origin.lines)")
        let refusals = daemon.logLines(count: pipelined.count) {
            $0.contains(#""event":"proxy.tunnel_refused""#) && $0.contains("not-tls")
        }
        #expect(refusals.count == pipelined.count, "\(daemon.logLines.suffix(5))")
    }

    @Test("the control: hellos and a ChangeCipherSpec split anywhere across writes pass whole, then the relay carries data")
    func splitRecordsPassWhole() throws {
        let origin = try RecordOrigin(retry: true)
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let client = try Self.tunnel(origin, daemon)
        let first = Self.hello("allowed.test")
        // The first hello in small pieces (each its own write), split inside its header too.
        for start in stride(from: 0, to: first.count, by: 3) {
            client.send(bytes: Array(first[start..<min(first.count, start + 3)]))
        }
        var answer = Self.answer(client)
        #expect(answer.count >= 43 && answer[5] == 0x02, "\(answer)")
        // The ChangeCipherSpec and the second hello cut across each other's records.
        let second = Self.changeCipherSpec + Self.hello("allowed.test")
        var from = 0
        for cut in [2, 9, 60, second.count] {
            client.send(bytes: Array(second[from..<cut]))
            from = cut
        }
        // The ServerHello, then an application-data record through the relay and back.
        let serverHello: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x32, 0x02]
        answer = []
        while !answer.indices.contains(where: { answer[$0...].starts(with: serverHello) }) {
            let chunk = Self.answer(client)
            if chunk.isEmpty { break }
            answer += chunk
        }
        let data = Self.record(0x17, Array("through the relay".utf8))
        client.send(bytes: data)
        var echoed: [UInt8] = []
        while echoed.count < data.count {
            let chunk = Self.answer(client)
            if chunk.isEmpty { break }
            echoed += chunk
        }
        #expect(echoed.suffix(data.count).elementsEqual(data), "\(echoed)")
        #expect(origin.serverNames == ["allowed.test", "allowed.test"], "\(origin.lines)")
        #expect(origin.recordTypes == [0x16, 0x14, 0x16, 0x17], "\(origin.lines)")
        #expect(!origin.sawPartialRecord)
    }

    // MARK: the origin's answers (issue 38, F3) and hosts with empty labels (F9)

    /// The refusals logged for this reason, once there are `count` (the line follows the close).
    static func refusals(_ daemon: DaemonProcess, _ reason: String, count: Int = 1) -> [String] {
        daemon.logLines(count: count) {
            $0.contains(#""event":"proxy.tunnel_refused""#) && $0.contains(#""reason":"\#(reason)""#)
        }
    }

    @Test(
        "an alert or a HelloRequest before the retry ends the tunnel: the second hello, naming blocked.test, never reaches the origin"
    )
    func answerBeforeTheRetry() throws {
        let alert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x70]
        for (mode, passed) in [("alert", alert), ("hello-request", [])] {
            let origin = try RecordOrigin(retry: true, modes: ["--before-retry", mode])
            let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
            do {
                let client = try Self.tunnel(origin, daemon)
                client.send(bytes: Self.hello("allowed.test"))
                let first = Self.answer(client)
                // The landed code relayed from here on: this hello reached the origin unread.
                client.send(bytes: Self.changeCipherSpec + Self.hello("blocked.test"))
                let rest = Self.answer(client)
                // The alert is passed on as the tunnel's end; a HelloRequest is not.
                #expect(first == passed, "\(mode): the client read \(first)")
                #expect(rest.isEmpty, "\(mode): the tunnel stayed open")
            }
            origin.waitUntilQuiet()
            #expect(origin.serverNames == ["allowed.test"], "\(mode): the origin read \(origin.lines)")
            #expect(Self.refusals(daemon, "origin-answer").count == 1, "\(mode): \(daemon.logLines.suffix(4))")
        }
    }

    @Test("a second HelloRetryRequest ends the tunnel: a third hello, naming blocked.test, never reaches the origin")
    func secondRetry() throws {
        let origin = try RecordOrigin(retry: true, modes: ["--second-retry"])
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        do {
            let client = try Self.tunnel(origin, daemon)
            client.send(bytes: Self.hello("allowed.test"))
            let first = Self.answer(client)
            #expect(first.count >= 43 && first[5] == 0x02, "\(first)")
            client.send(bytes: Self.changeCipherSpec + Self.hello("allowed.test"))
            let second = Self.answer(client)
            // The landed code relayed after the second hello: this one went to the origin unread.
            client.send(bytes: Self.hello("blocked.test"))
            _ = Self.answer(client)
            #expect(second.isEmpty, "the second HelloRetryRequest reached the client: \(second)")
        }
        origin.waitUntilQuiet()
        #expect(origin.serverNames == ["allowed.test", "allowed.test"], "the origin read \(origin.lines)")
        let refusals = Self.refusals(daemon, "origin-answer")
        #expect(refusals.count == 1 && refusals[0].contains("another HelloRetryRequest"), "\(daemon.logLines.suffix(4))")
    }

    @Test(
        "every message of the origin's answer is read: two retries in a record, a ServerHello then a retry, a split retry — a third hello never passes",
        arguments: ["two-retries", "hello-then-retry", "split-retry"])
    func answersReadWhole(attack: String) throws {
        let origin = try RecordOrigin(retry: false, modes: ["--attack", attack])
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        do {
            let client = try Self.tunnel(origin, daemon)
            client.send(bytes: Self.hello("allowed.test"))
            _ = Self.answer(client)
            client.send(bytes: Self.changeCipherSpec + Self.hello("allowed.test"))
            _ = Self.answer(client)
            // The landed code read only the first message of the first record: the relay had
            // started, and this hello reached the origin unread.
            client.send(bytes: Self.hello("blocked.test"))
            _ = Self.answer(client)
        }
        origin.waitUntilQuiet()
        #expect(!origin.serverNames.contains("blocked.test"), "\(attack): the origin read \(origin.lines)")
        #expect(origin.serverNames.allSatisfy { $0 == "allowed.test" }, "\(attack): \(origin.lines)")
        #expect(Self.refusals(daemon, "origin-answer").count == 1, "\(attack): \(daemon.logLines.suffix(4))")
    }

    @Test("a CONNECT host with an empty label is a bad request, not a host to decide; one trailing dot is still decided")
    func emptyLabelsRefused() throws {
        let origin = try RecordOrigin(retry: false)
        let daemon = try DaemonProcess(config: Self.config(origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        for host in ["blocked.test..", "blocked..test", ".blocked.test", "blocked.test.%2E"] {
            let (_, response) = try ConnectTunnelLiveTests.connect("\(host):\(origin.port)", proxyPort: proxyPort)
            #expect(response.status == 400, "\(host): \(response.status)")
            #expect(response.body.contains("invalid-connect-target"), "\(host): \(response.body)")
        }
        let (_, blocked) = try ConnectTunnelLiveTests.connect("blocked.test.:\(origin.port)", proxyPort: proxyPort)
        #expect(blocked.status == 403)
        #expect(origin.lines.isEmpty, "\(origin.lines)")
    }
}
