import Dispatch
import Foundation
import HTTPServer
import Synchronization
import TestSelection
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Streamed response bodies (``HTTPBodyStream``) sent by a live server: framing, suspension
/// and wake-up, failures, clients leaving, shutdown, deferred answers and HEAD.
@Suite(.tags(.live, .sanitizerRelevant, .optimized)) struct StreamingResponseTests {
    /// A body stream that plays a script: one step per `read`, except that a `.bytes` step
    /// larger than the server's buffer is handed out over several reads.
    final class ScriptedBodyStream: HTTPBodyStream {
        enum Step: Sendable {
            /// Hands out these bytes (never empty).
            case bytes([UInt8])
            /// Returns `.pending` and wakes the server from a dispatch queue after this delay.
            case pauseWakingAfter(milliseconds: Int)
            /// Calls `wake()` inside `read`, then returns `.pending`: the wake beats the suspension.
            case pauseWakingEarly
            /// Returns `.pending` and keeps the waker; only ``wakeHeldWaker()`` wakes the server.
            case pauseUntilWoken
            /// Returns `.failed`.
            case fail
        }

        let contentLength: Int?
        /// How often the server called `read`.
        let readCalls = Atomic<Int>(0)
        /// How often the server called `close` (the protocol promises exactly once).
        let closeCalls = Atomic<Int>(0)
        /// Signalled each time `read` returns `.pending`.
        let paused = DispatchSemaphore(value: 0)
        private let remainingSteps: Mutex<[Step]>
        private let keptWaker = Mutex<(any HTTPBodyStreamWaker)?>(nil)

        init(contentLength: Int?, _ steps: [Step]) {
            self.contentLength = contentLength
            remainingSteps = Mutex(steps)
        }

        func read(into buffer: UnsafeMutableRawBufferPointer, waker: any HTTPBodyStreamWaker) -> HTTPBodyStreamRead {
            readCalls.add(1, ordering: .relaxed)
            let step = remainingSteps.withLock { steps -> Step? in
                guard let first = steps.first else { return nil }
                if case .bytes(let bytes) = first, bytes.count > buffer.count {
                    steps[0] = .bytes(Array(bytes.dropFirst(buffer.count)))
                    return .bytes(Array(bytes.prefix(buffer.count)))
                }
                steps.removeFirst()
                return first
            }
            switch step {
            case nil: return .end
            case .bytes(let bytes):
                buffer.copyBytes(from: bytes)
                return .bytes(bytes.count)
            case .fail: return .failed
            case .pauseWakingAfter(let milliseconds):
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { waker.wake() }
            case .pauseWakingEarly: waker.wake()
            case .pauseUntilWoken: keptWaker.withLock { $0 = waker }
            }
            paused.signal()
            return .pending
        }

        func close() {
            closeCalls.add(1, ordering: .relaxed)
            keptWaker.withLock { $0 = nil }  // a real producer drops the waker here too
        }

        /// The waker kept by the last `.pauseUntilWoken` step, if `close()` has not dropped it.
        var heldWaker: (any HTTPBodyStreamWaker)? { keptWaker.withLock { $0 } }

        /// Wakes the server with the kept waker, if any.
        func wakeHeldWaker() { heldWaker?.wake() }

        /// Polls until `close()` was called or 5 s passed; returns the number of calls.
        func closeCallsAfterWaiting() -> Int {
            let deadline = ContinuousClock.now.advanced(by: .seconds(5))
            while closeCalls.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { usleep(5_000) }
            return closeCalls.load(ordering: .relaxed)
        }
    }

    /// Answers each path of `routes` with its result and every other path with "ok".
    struct ScriptedRouter: HTTPResponder {
        let routes: [String: HTTPResponderResult]

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            routes[request.path] ?? .now(.text("ok"))
        }
    }

    /// Starts a server on port 0 answering with `ScriptedRouter(routes)`.
    static func startServer(routes: [String: HTTPResponderResult]) throws -> (server: HTTPServer, port: UInt16) {
        let configuration = HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix)
        let server = HTTPServer(configuration: configuration, responder: ScriptedRouter(routes: routes))
        return (server, try server.start())
    }

    /// A 200 answered at once with `stream` as its body.
    static func streamed(_ stream: ScriptedBodyStream) -> HTTPResponderResult {
        .now(HTTPResponse(status: 200, bodyStream: stream))
    }

    /// `count` ASCII letters whose cycle starts at a letter chosen by `seed`, so that the parts
    /// of a body differ from one another.
    static func letters(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8((seed * 7 + $0) % 26) }
    }

    /// The value of header field `name` in curl `-i` output, or nil when absent.
    static func headerValue(_ name: String, in response: String) -> String? {
        let head = response.components(separatedBy: "\r\n\r\n").first ?? ""
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 && parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Connects to the server, sends `request`, and returns the socket (5 s receive timeout), or nil.
    static func connectAndSend(port: UInt16, _ request: String) -> Int32? {
        guard let fd = connectedLoopbackSocket(port: port, timeoutSeconds: 5) else { return nil }
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            close(fd)
            return nil
        }
        return fd
    }

    @Test func knownLengthArrivesWholeAcrossPausesWokenFromAnotherThread() throws {
        let parts = [Self.letters(20_000, seed: 0), Self.letters(5, seed: 1), Self.letters(9_000, seed: 2)]
        let stream = ScriptedBodyStream(
            contentLength: 29_005,
            [
                .bytes(parts[0]), .pauseWakingAfter(milliseconds: 5), .bytes(parts[1]),
                .pauseWakingAfter(milliseconds: 5), .bytes(parts[2]),
            ])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["-i", "http://127.0.0.1:\(port)/stream"])
        #expect(result.exitCode == 0)
        #expect(Self.headerValue("Content-Length", in: result.stdout) == "29005")
        #expect(Self.headerValue("Transfer-Encoding", in: result.stdout) == nil)
        #expect(Array(statusAndBody(result.stdout).body.utf8) == Array(parts.joined()))
        #expect(stream.closeCallsAfterWaiting() == 1)
    }

    @Test func unknownLengthIsChunkedOnHTTP11AndCloseDelimitedOnHTTP10() throws {
        let parts = [Self.letters(17_000, seed: 3), Self.letters(3_000, seed: 4)]
        let steps: [ScriptedBodyStream.Step] = [.bytes(parts[0]), .pauseWakingAfter(milliseconds: 5), .bytes(parts[1])]
        let chunked = ScriptedBodyStream(contentLength: nil, steps)
        let closeDelimited = ScriptedBodyStream(contentLength: nil, steps)
        let (server, port) = try Self.startServer(routes: [
            "/chunked": Self.streamed(chunked), "/http10": Self.streamed(closeDelimited),
        ])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let http11 = try curl(["-i", "http://127.0.0.1:\(port)/chunked"])
        #expect(http11.exitCode == 0)
        #expect(Self.headerValue("Transfer-Encoding", in: http11.stdout) == "chunked")
        #expect(Self.headerValue("Content-Length", in: http11.stdout) == nil)
        #expect(Array(statusAndBody(http11.stdout).body.utf8) == Array(parts.joined()))
        let http10 = try curl(["-i", "--http1.0", "http://127.0.0.1:\(port)/http10"])
        #expect(http10.exitCode == 0)
        #expect(Self.headerValue("Transfer-Encoding", in: http10.stdout) == nil)
        #expect(Array(statusAndBody(http10.stdout).body.utf8) == Array(parts.joined()))
        #expect(chunked.closeCallsAfterWaiting() == 1)
        #expect(closeDelimited.closeCallsAfterWaiting() == 1)
    }

    @Test func wakeArrivingBeforeTheSuspensionDoesNotHang() throws {
        let parts = [Self.letters(300, seed: 5), Self.letters(700, seed: 6)]
        let stream = ScriptedBodyStream(
            contentLength: 1_000, [.bytes(parts[0]), .pauseWakingEarly, .pauseWakingEarly, .bytes(parts[1])])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        // A second request on the same connection: the streamed one ended cleanly (keep-alive).
        let result = try curl(["--fail-early", "http://127.0.0.1:\(port)/stream", "http://127.0.0.1:\(port)/next"])
        #expect(result.exitCode == 0, "curl exit 28 means the early wake was lost")
        #expect(result.stdout == String(decoding: parts.joined(), as: UTF8.self) + "ok")
        #expect(stream.readCalls.load(ordering: .relaxed) >= 4)
        #expect(stream.closeCallsAfterWaiting() == 1)
    }

    @Test(arguments: [10_000, nil] as [Int?])
    func failureAfterSomeBytesTruncatesAndTheServerKeepsServing(contentLength: Int?) throws {
        let sent = Self.letters(3_000, seed: 7)
        let stream = ScriptedBodyStream(contentLength: contentLength, [.bytes(sent), .pauseWakingAfter(milliseconds: 5), .fail])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["http://127.0.0.1:\(port)/stream"])
        #expect([18, 56].contains(result.exitCode), "a truncated body must not look complete")
        #expect(result.stdout == String(decoding: sent, as: UTF8.self))
        #expect(stream.closeCallsAfterWaiting() == 1)
        #expect(try curl(["http://127.0.0.1:\(port)/next"]).stdout == "ok")
    }

    @Test func clientLeavingWhileSuspendedClosesTheStreamOnceAfterTheWake() throws {
        let stream = ScriptedBodyStream(
            contentLength: 201_000,
            [.bytes(Self.letters(1_000, seed: 8)), .pauseUntilWoken, .bytes(Self.letters(200_000, seed: 9))])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let fd = try #require(Self.connectAndSend(port: port, "GET /stream HTTP/1.1\r\nHost: test\r\n\r\n"))
        #expect(stream.paused.wait(timeout: .now() + 5) == .success)
        var firstBytes = [UInt8](repeating: 0, count: 256)
        #expect(recv(fd, &firstBytes, firstBytes.count, 0) > 0)
        close(fd)  // unread bytes remain, so the kernel resets the connection
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { stream.wakeHeldWaker() }
        #expect(stream.closeCallsAfterWaiting() == 1)
        #expect(try curl(["http://127.0.0.1:\(port)/next"]).stdout == "ok")
        #expect(stream.closeCalls.load(ordering: .relaxed) == 1)
    }

    @Test func shutdownEndsAStreamThatIsNeverWoken() throws {
        let sent = Self.letters(1_000, seed: 10)
        let stream = ScriptedBodyStream(contentLength: nil, [.bytes(sent), .pauseUntilWoken])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        let client = ShutdownTests.BackgroundCurl(["http://127.0.0.1:\(port)/stream"])
        #expect(stream.paused.wait(timeout: .now() + 5) == .success)
        let lateWaker = try #require(stream.heldWaker)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown(drainTimeout: .milliseconds(200))
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 10) == .success, "shutdown hung on a suspended stream")
        #expect(stream.closeCalls.load(ordering: .relaxed) == 1)
        lateWaker.wake()  // a producer waking after shutdown must be harmless
        let result = try #require(client.wait())
        #expect(result.exitCode != 0, "the cut chunked body must not look complete")
        #expect(result.stdout == String(decoding: sent, as: UTF8.self))
    }

    @Test func deferredAnswerFromAnotherThreadCarriesAStream() throws {
        let parts = [Self.letters(2_000, seed: 11), Self.letters(2_000, seed: 12)]
        let stream = ScriptedBodyStream(
            contentLength: nil, [.bytes(parts[0]), .pauseWakingAfter(milliseconds: 5), .bytes(parts[1])])
        let deferred = HTTPResponderResult.deferred { respond, _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
                respond(HTTPResponse(status: 200, headers: HTTPHeaders([("X-Deferred", "yes")]), bodyStream: stream))
            }
        }
        let (server, port) = try Self.startServer(routes: ["/deferred": deferred])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["-i", "http://127.0.0.1:\(port)/deferred"])
        #expect(result.exitCode == 0)
        #expect(statusAndBody(result.stdout).status == 200)
        #expect(Self.headerValue("X-Deferred", in: result.stdout) == "yes")
        #expect(Array(statusAndBody(result.stdout).body.utf8) == Array(parts.joined()))
        #expect(stream.closeCallsAfterWaiting() == 1)
    }

    @Test func headCarriesTheContentLengthWithoutReadingTheStream() throws {
        let stream = ScriptedBodyStream(contentLength: 5_000, [.bytes(Self.letters(5_000, seed: 13))])
        let (server, port) = try Self.startServer(routes: ["/stream": Self.streamed(stream)])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["-I", "http://127.0.0.1:\(port)/stream"])
        #expect(result.exitCode == 0)
        #expect(statusAndBody(result.stdout).status == 200)
        #expect(Self.headerValue("Content-Length", in: result.stdout) == "5000")
        #expect(statusAndBody(result.stdout).body.isEmpty)
        #expect(stream.closeCallsAfterWaiting() == 1)
        #expect(stream.readCalls.load(ordering: .relaxed) == 0)
    }
}
