import Foundation
import TestSelection
import Testing

/// Issue 38, items 3 and 9, from outside with raw HTTP/2 frames: a gRPC ext_authz connection
/// cannot be held open without calls being answered, one network cannot fill the listener, and
/// the peer's HPACK table stays within the 4 KiB the server's SETTINGS allow.
@Suite("ext_authz gRPC listener: held and filled connections, live", .serialized, .tags(.live, .sanitizerRelevant))
struct ExtAuthzGRPCHoldingLiveTests {
    static let checkPath = "/envoy.service.auth.v3.Authorization/Check"
    static let healthPath = "/grpc.health.v1.Health/Check"

    /// Streams a connection got a whole answer on (trailers: HEADERS with END_STREAM).
    static func answered(_ reader: H2Reader) -> Set<UInt32> {
        Set(reader.frames.filter { $0.type == H2Frames.headers && $0.flags & 0x01 != 0 }.map(\.stream))
    }

    @Test("item 3: streams opened and reset every 250 ms do not keep a connection past idleTimeoutSeconds; answered calls do")
    func openedAndResetStreamsDoNotKeepAConnection() throws {
        // Before: opening a stream restarted the idle time, so this connection stayed open for
        // as long as the client went on; each stream is reset before its own deadline.
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""idleTimeoutSeconds": 2, "headTimeoutSeconds": 10"#))
        let attacker = H2Reader(try RawConnection(port: port))
        let caller = H2Reader(try RawConnection(port: port))
        attacker.connection.send(bytes: H2Frames.preface)
        caller.connection.send(bytes: H2Frames.preface)
        let start = Date()
        var stream: UInt32 = 1
        var calls: UInt32 = 0
        var closedAfter: Double?
        while Date().timeIntervalSince(start) < 8 {
            // A new stream held half-open, then the one before it reset: one is always open.
            attacker.connection.send(
                bytes: H2Frames.requestHeaders(stream: stream, path: Self.checkPath)
                    + (stream > 1 ? H2Frames.reset(stream: stream - 2) : []))
            stream += 2
            if Date().timeIntervalSince(start) < 3.5 {
                // The control: a client whose calls are answered keeps its connection.
                caller.connection.send(bytes: H2Frames.call(stream: 2 * calls + 1, path: Self.healthPath))
                calls += 1
            }
            Thread.sleep(forTimeInterval: 0.25)
            caller.poll()
            if attacker.poll() {
                closedAfter = Date().timeIntervalSince(start)
                break
            }
        }
        let elapsed = try #require(closedAfter, "still open after 8 s of streams opened and reset, idle time 2 s")
        #expect(elapsed >= 1.5 && elapsed < 5, "closed after \(elapsed) s, configured 2 s")
        let goaway = try #require(
            attacker.frames.last { $0.type == H2Frames.goaway }, "no GOAWAY: \(attacker.frames.map(\.type))")
        #expect(goaway.errorCode == H2Frames.noError)
        // The caller's connection outlived the attacker's and every call was answered.
        #expect(
            caller.wait(seconds: 2) { Self.answered($0).count == Int(calls) },
            "answered \(Self.answered(caller).count) of \(calls)")
        #expect(!caller.closed, "a connection whose calls are answered was closed")
        try ExtAuthzGRPCLiveTests.stillServes(port)
        _ = daemon
    }

    @Test("item 3: a connection whose streams keep timing out is closed (GOAWAY ENHANCE_YOUR_CALM) at the fourth")
    func timedOutStreamsCloseTheConnection() throws {
        // idleTimeoutSeconds stays at its 30 s: only the stream deadlines can close it here.
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""headTimeoutSeconds": 1"#))
        let attacker = H2Reader(try RawConnection(port: port))
        attacker.connection.send(bytes: H2Frames.preface)
        let start = Date()
        var stream: UInt32 = 1
        var closedAfter: Double?
        while Date().timeIntervalSince(start) < 8 {
            attacker.connection.send(bytes: H2Frames.requestHeaders(stream: stream, path: Self.checkPath))
            stream += 2
            Thread.sleep(forTimeInterval: 0.25)
            if attacker.poll() {
                closedAfter = Date().timeIntervalSince(start)
                break
            }
        }
        let elapsed = try #require(closedAfter, "still open after 8 s of half-open streams reset every 250 ms")
        // The streams opened at 0, 0.25, 0.5 and 0.75 s time out at 1 to 1.75 s.
        #expect(elapsed >= 1.5 && elapsed < 5, "closed after \(elapsed) s")
        let resets = attacker.frames.filter { $0.type == H2Frames.rstStream }
        #expect(resets.count >= 3 && resets.allSatisfy { $0.errorCode == H2Frames.cancel }, "\(resets.map(\.stream))")
        let goaway = try #require(
            attacker.frames.last { $0.type == H2Frames.goaway }, "no GOAWAY: \(attacker.frames.map(\.type))")
        #expect(goaway.errorCode == H2Frames.enhanceYourCalm)
        let logged = daemon.waitForLog { $0.contains(#""event":"grpc.connection_closed""#) }
        #expect(logged?.contains(#""reason":"stream_timeouts""#) == true, "\(daemon.logLines.suffix(5))")
        try ExtAuthzGRPCLiveTests.stillServes(port)
    }

    /// Connects, sets SETTINGS_INITIAL_WINDOW_SIZE 0 (never opening a window) and sends a whole
    /// Check call every 0.5 s until the server closes the connection; requires that within 8 s,
    /// and with a GOAWAY. Returns the seconds it took and the frames received.
    static func closeWithShutWindow(port: Int) throws -> (elapsed: Double, goaway: H2Frames.Frame, reader: H2Reader) {
        let attacker = H2Reader(try RawConnection(port: port))
        attacker.connection.send(bytes: H2Frames.preface + H2Frames.settings([(0x4, 0)]))
        let start = Date()
        var stream: UInt32 = 1
        var closedAfter: Double?
        while closedAfter == nil && Date().timeIntervalSince(start) < 8 {
            attacker.connection.send(bytes: H2Frames.call(stream: stream, path: Self.checkPath))
            stream += 2
            Thread.sleep(forTimeInterval: 0.5)
            if attacker.poll() { closedAfter = Date().timeIntervalSince(start) }
        }
        let elapsed = try #require(closedAfter, "still open after 8 s of calls whose responses it never took")
        let goaway = try #require(
            attacker.frames.last { $0.type == H2Frames.goaway }, "no GOAWAY: \(attacker.frames.map(\.type))")
        // Not one response got through a window of 0: nothing was answered.
        #expect(Self.answered(attacker).isEmpty)
        return (elapsed, goaway, attacker)
    }

    @Test("item 3: calls whose responses are never taken (window shut) do not keep a connection past idleTimeoutSeconds")
    func undeliveredAnswersDoNotKeepAConnection() throws {
        // Before: a call counted as answered when its response was queued, so a client that set
        // its window to 0 and sent a call every 2 s held its connection ~128 idle periods
        // (until 128 streams were stuck), taking no response.
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""idleTimeoutSeconds": 2"#))
        let closed = try Self.closeWithShutWindow(port: port)
        #expect(closed.elapsed >= 1.5 && closed.elapsed < 5, "closed after \(closed.elapsed) s, configured 2 s")
        #expect(closed.goaway.errorCode == H2Frames.noError)
        try ExtAuthzGRPCLiveTests.stillServes(port)
        _ = daemon
    }

    @Test("item 3: responses not delivered within headTimeoutSeconds are reset; the fourth closes the connection")
    func undeliveredAnswersTimeOut() throws {
        // idleTimeoutSeconds stays at its 30 s: only the delivery deadlines can close it here.
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""headTimeoutSeconds": 1"#))
        let closed = try Self.closeWithShutWindow(port: port)
        // The calls queued at 0, 0.5, 1 and 1.5 s time out at 1 to 2.5 s.
        #expect(closed.elapsed >= 2 && closed.elapsed < 5, "closed after \(closed.elapsed) s")
        let resets = closed.reader.frames.filter { $0.type == H2Frames.rstStream }
        #expect(resets.count >= 3 && resets.allSatisfy { $0.errorCode == H2Frames.cancel }, "\(resets.map(\.stream))")
        #expect(closed.goaway.errorCode == H2Frames.enhanceYourCalm)
        #expect(daemon.waitForLog { $0.contains(#""event":"grpc.response_timeout""#) } != nil)
        try ExtAuthzGRPCLiveTests.stillServes(port)
    }

    /// Opens `count` connections from `source`, one after the other; the ones served (the
    /// server's SETTINGS arrived) stay open in `held`. Returns how many were served.
    static func connect(_ count: Int, from source: String, port: Int, into held: inout [RawConnection]) throws -> Int {
        var served = 0
        for _ in 0..<count {
            let connection = try RawConnection(port: port, source: source)
            connection.send(bytes: H2Frames.preface)
            // A refused connection is closed at accept: end of stream (or a reset), no SETTINGS.
            guard !connection.receive(maxBytes: 9).isEmpty else { continue }
            served += 1
            held.append(connection)
        }
        return served
    }

    @Test("item 3: one network holds at most its share of the gRPC listener; other networks are still served")
    func networksShareTheListener() throws {
        // 16 in total, 4 per address: perSubnetConnectionLimit is derived as 8, and the last
        // 2 slots are kept for networks holding fewer than 2. Before: 4 addresses of one /24
        // took all 16 slots and every other client was refused.
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""connectionLimit": 16, "perIPConnectionLimit": 4"#))
        var held: [RawConnection] = []
        var first = 0
        for host in 1...4 { first += try Self.connect(4, from: "127.0.1.\(host)", port: port, into: &held) }
        #expect(first == 8, "127.0.1.0/24 holds \(first) connections, its share is 8")
        var probes: [RawConnection] = []
        #expect(try Self.connect(1, from: "127.0.2.1", port: port, into: &probes) == 1, "another /24 while one floods")
        let refusal = daemon.waitForLog { $0.contains(#""reason":"network_limit""#) }
        #expect(refusal?.contains(#""network":"127.0.1.0/24""#) == true, "\(daemon.logLines.suffix(3))")
        // A second network floods too: it stops short of the 2 slots kept for small networks.
        var second = 0
        for host in 1...4 { second += try Self.connect(4, from: "127.0.2.\(host)", port: port, into: &held) }
        #expect(second == 5, "127.0.2.0/24 took \(second) more: 14 slots are left to heavy networks")
        #expect(try Self.connect(1, from: "127.0.3.1", port: port, into: &probes) == 1, "a third /24 while two flood")
        probes.removeAll()
        Thread.sleep(forTimeInterval: 0.3)
        try ExtAuthzGRPCLiveTests.stillServes(port)
        #expect(held.count == 13)
    }

    @Test("refused gRPC connections write at most 20 log lines a second; the rest are counted, not written")
    func refusalLinesAreRateLimited() throws {
        // One address may hold 2 connections: the next 58 are refused at accept. Before, each
        // refusal wrote a warning line (1,122 lines in the helper's flood of the defaults).
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(
            config: ExtAuthzGRPCLiveTests.boundedConfig(#""connectionLimit": 16, "perIPConnectionLimit": 2"#))
        var held: [RawConnection] = []
        let served = try Self.connect(60, from: "127.0.4.1", port: port, into: &held)
        #expect(served == 2, "one address holds \(served) connections, its share is 2")
        let refused = 60 - served
        _ = daemon.waitForLog { $0.contains(#""event":"grpc.connection_refused""#) }
        let lines = daemon.logLines.filter { $0.contains(#""event":"grpc.connection_refused""#) }
        // The 58 refusals arrive within a second or two: one or two windows of 20 lines.
        #expect((1...40).contains(lines.count), "\(lines.count) refusal lines for \(refused) refusals")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body.split(separator: "\n")
        let suppressed = metrics.first {
            $0.hasPrefix(#"navpolicyd_log_lines_suppressed_total{event="grpc.connection_refused"}"#)
        }
        let count = suppressed.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
        #expect(
            count + lines.count == refused,
            "\(suppressed.map(String.init) ?? "no suppressed-lines counter"), \(lines.count) lines")
    }

    @Test("item 9: an HPACK table size update past the 4 KiB the server allows ends the connection (COMPRESSION_ERROR)")
    func peerHPACKTableIsBounded() throws {
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start()
        // RFC 7541 section 6.3, 5-bit prefix: 4096 = 31 + 4065 (0xE1 0x1F), 4097 = 31 + 4066.
        let within = H2Reader(try RawConnection(port: port))
        within.connection.send(
            bytes: H2Frames.preface
                + H2Frames.requestHeaders(stream: 1, path: Self.healthPath, prefix: [0x3F, 0xE1, 0x1F])
                + H2Frames.frame(type: H2Frames.data, flags: 0x01, stream: 1, payload: [0, 0, 0, 0, 0]))
        #expect(within.wait(seconds: 5) { Self.answered($0).contains(1) }, "a 4096-byte table: \(within.frames.map(\.type))")
        let past = H2Reader(try RawConnection(port: port))
        past.connection.send(
            bytes: H2Frames.preface + H2Frames.requestHeaders(stream: 1, path: Self.healthPath, prefix: [0x3F, 0xE2, 0x1F]))
        #expect(past.wait(seconds: 5) { $0.closed }, "a 4097-byte table update was taken")
        let goaway = past.frames.last { $0.type == H2Frames.goaway }
        #expect(goaway?.errorCode == H2Frames.compressionError, "\(past.frames.map(\.type))")
        #expect(!Self.answered(past).contains(1))
        try ExtAuthzGRPCLiveTests.stillServes(port)
        _ = daemon
    }
}
