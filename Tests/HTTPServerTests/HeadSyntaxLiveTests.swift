import Foundation
import HTTPServer
import TestSelection
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a raw exchange saw: the bytes, and whether the server closed the connection.
struct RawOutcome {
    var text: String
    var closedByServer: Bool

    /// How many status lines the bytes hold (a response sent twice shows two).
    var statusLines: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
}

/// Sends `request` and reads until the server closes or `timeoutSeconds` pass.
func rawOutcome(port: UInt16, _ request: [UInt8], timeoutSeconds: Int = 3) -> RawOutcome {
    guard let fd = connectedLoopbackSocket(port: port, timeoutSeconds: timeoutSeconds) else {
        return RawOutcome(text: "", closedByServer: false)
    }
    defer { close(fd) }
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received.append(contentsOf: buffer.prefix(count))
            continue
        }
        // 0: orderly close; ECONNRESET: closed with unread data; EAGAIN: the timeout.
        let closed = count == 0 || errno == ECONNRESET
        return RawOutcome(text: String(decoding: received, as: UTF8.self), closedByServer: closed)
    }
}

/// Request heads a strict HTTP/1.1 parser must refuse, each with the problem kind it gets.
let malformedHeads: [(name: String, head: String, kind: String)] = [
    ("bare CR in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\rContent-Length: 0\r\n\r\n", "invalid-header-field-value"),
    ("space before the colon", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n", "invalid-header-field-name"),
    ("tab before the colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A\t: b\r\n\r\n", "invalid-header-field-name"),
    ("whitespace-led first field line", "GET / HTTP/1.1\r\n X-A: b\r\nHost: x\r\n\r\n", "invalid-header-field-name"),
    ("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\nX-B: d\r\n\r\n", "malformed-header-section"),
    ("obs-fold with a tab", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\tContent-Length: 5\r\n\r\n", "invalid-header-field-name"),
    (
        "NUL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}Content-Length: 0\r\nX-B: c\r\n\r\n",
        "malformed-header-section"
    ),
    ("NUL in the last value", "GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}hidden\r\n\r\n", "malformed-header-section"),
    ("empty field name", "GET / HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n", "malformed-header-section"),
    ("separator in a name", "GET / HTTP/1.1\r\nHost: x\r\nX(A): b\r\n\r\n", "invalid-header-field-name"),
    ("control character in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{1}b\r\n\r\n", "invalid-header-field-value"),
    ("method not a token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", "invalid-method"),
    ("space in the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", "invalid-request-target"),
    ("Content-Length +5", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello", "invalid-content-length"),
    ("Content-Length 5, 5", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello", "invalid-content-length"),
    ("Content-Length -1", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\nhello", "invalid-content-length"),
    (
        "Content-Length beyond 64 bits", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\nhello",
        "invalid-content-length"
    ),
]

@Suite(.tags(.live, .sanitizerRelevant)) struct HeadSyntaxLiveTests {
    @Test func eachMalformedHeadGetsExactlyOne400ProblemAndTheConnectionCloses() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .zero) }
        for shape in malformedHeads {
            let outcome = rawOutcome(port: port, Array(shape.head.utf8))
            let (status, body) = statusAndBody(outcome.text)
            #expect(outcome.statusLines == 1, "\(shape.name): \(outcome.text.debugDescription)")
            #expect(status == 400, "\(shape.name)")
            #expect(problemType(body) == testProblemTypePrefix + shape.kind, "\(shape.name): \(body)")
            #expect(outcome.text.lowercased().contains("content-type: application/problem+json"), "\(shape.name)")
            #expect(outcome.text.lowercased().contains("connection: close"), "\(shape.name)")
            #expect(outcome.closedByServer, "\(shape.name): the connection stayed open")
        }
        // Still serving, and tolerant shapes RFC 9112 allows still pass.
        let fine = rawOutcome(port: port, Array("GET /ok HTTP/1.1\nHost: x\nX-A:b  \nConnection: close\n\n".utf8))
        #expect(statusAndBody(fine.text).status == 200)
    }

    @Test func aSlowHeadIsCutAtTheHeadDeadline() throws {
        let logs = LogCollector()
        let (server, port) = try startServer(
            HTTPServerConfiguration(port: 0, headTimeoutSeconds: 1, problemTypePrefix: testProblemTypePrefix), logs: logs)
        defer { server.shutdown(drainTimeout: .zero) }
        let fd = try #require(connectedLoopbackSocket(port: port, timeoutSeconds: 1))
        defer { close(fd) }
        let head = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8)
        var closed = false
        // One byte every 200 ms keeps MHD's idle timer fresh; the head deadline is 1 s.
        for byte in head {
            var value = byte
            if send(fd, &value, 1, Int32(MSG_NOSIGNAL)) != 1 {
                closed = true
                break
            }
            var probe: UInt8 = 0
            let peek = recv(fd, &probe, 1, Int32(MSG_DONTWAIT))
            if peek == 0 {
                closed = true
                break
            }
            usleep(200_000)
        }
        #expect(closed, "the server kept a head dribbling in for 8 s")
        #expect(logs.eventually { $0.event == "http.connections_cut" && $0.fields["headTimeouts"]?.integerValue == 1 })
    }

    @Test func aSlowBodyIsCutAndAKeptAliveConnectionMayIdle() throws {
        let configuration = HTTPServerConfiguration(
            port: 0, connectionTimeoutSeconds: 30, headTimeoutSeconds: 1, minBodyBytesPerSecond: 1000, bodyRateGraceSeconds: 1,
            problemTypePrefix: testProblemTypePrefix)
        let logs = LogCollector()
        let (server, port) = try startServer(configuration, logs: logs)
        defer { server.shutdown(drainTimeout: .zero) }

        // Idle keep-alive longer than the head timeout: governed by the idle timeout alone.
        let kept = try #require(connectedLoopbackSocket(port: port, timeoutSeconds: 3))
        defer { close(kept) }
        let get = Array("GET /one HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = get.withUnsafeBytes { send(kept, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        #expect(buffer.withUnsafeMutableBytes { recv(kept, $0.baseAddress, $0.count, 0) } > 0)
        usleep(2_000_000)
        let again = Array("GET /two HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = again.withUnsafeBytes { send(kept, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let second = buffer.withUnsafeMutableBytes { recv(kept, $0.baseAddress, $0.count, 0) }
        #expect(second > 0 && String(decoding: buffer.prefix(max(0, second)), as: UTF8.self).contains("/two"))

        // A body at 50 bytes/s against a minimum of 1000 bytes/s after 1 s.
        let slow = try #require(connectedLoopbackSocket(port: port, timeoutSeconds: 1))
        defer { close(slow) }
        let head = Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n".utf8)
        _ = head.withUnsafeBytes { send(slow, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var closed = false
        for _ in 0..<40 {
            var chunk = [UInt8](repeating: 0x61, count: 10)
            if chunk.withUnsafeMutableBytes({ send(slow, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) != 10 {
                closed = true
                break
            }
            var probe: UInt8 = 0
            if recv(slow, &probe, 1, Int32(MSG_DONTWAIT)) == 0 {
                closed = true
                break
            }
            usleep(200_000)
        }
        #expect(closed, "a body arriving at 50 bytes/s was kept for 8 s")
        #expect(logs.eventually { $0.event == "http.connections_cut" && $0.fields["slowBodies"]?.integerValue == 1 })
    }
}
