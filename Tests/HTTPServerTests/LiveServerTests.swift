import Foundation
import HTTPServer
import JSONSupport
import TestSelection
import Testing

/// A real server on an ephemeral port, driven by curl and raw sockets.
@Suite(.tags(.live, .sanitizerRelevant)) struct LiveServerTests {
    @Test func getWithQueryReachesTheResponderDecoded() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["http://127.0.0.1:\(port)/a%2Fb?x=1+2&y=%41"])
        let json = try JSONParser().parse(result.stdout).objectValue
        #expect(json?["path"]?.stringValue == "/a%2Fb")
        #expect(json?["query"] == .array([.array([.string("x"), .string("1 2")]), .array([.string("y"), .string("A")])]))
        #expect(json?["remoteAddress"]?.stringValue == "127.0.0.1")
        #expect(json?["version"]?.stringValue == "HTTP/1.1")
    }

    @Test func postBodyIsEchoedIncludingChunked() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let body = String(repeating: "0123456789", count: 3_000)
        let plain = try curl(["--data-binary", "@-", "http://127.0.0.1:\(port)/echo"], stdin: Data(body.utf8))
        #expect(plain.stdout == body)
        let chunked = try curl(
            ["-H", "Transfer-Encoding: chunked", "--data-binary", "@-", "http://127.0.0.1:\(port)/echo"], stdin: Data(body.utf8))
        #expect(chunked.stdout == body)
    }

    @Test func oversizedBodiesGet413ProblemByLengthAndByChunks() throws {
        let logs = LogCollector()
        let (server, port) = try startServer(
            HTTPServerConfiguration(port: 0, maxBodyBytes: 1_000, problemTypePrefix: testProblemTypePrefix), logs: logs)
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let body = Data(repeating: 0x61, count: 5_000)
        for extra in [[], ["-H", "Transfer-Encoding: chunked"]] {
            let result = try curl(extra + ["-i", "--data-binary", "@-", "http://127.0.0.1:\(port)/echo"], stdin: body)
            let (status, json) = statusAndBody(result.stdout.replacingOccurrences(of: "HTTP/1.1 100 Continue\r\n\r\n", with: ""))
            #expect(status == 413)
            #expect(result.stdout.contains("Content-Type: application/problem+json"))
            #expect(problemType(json) == testProblemTypePrefix + "payload-too-large")
        }
        #expect(logs.all.contains { $0.event == "http.request_rejected" && $0.fields["status"] == .number(413) })
    }

    @Test func overlongTargetAndHeadersGetProblems() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let longTarget = try curl(["-i", "http://127.0.0.1:\(port)/" + String(repeating: "a", count: 9_000)])
        #expect(statusAndBody(longTarget.stdout).status == 414)
        #expect(problemType(statusAndBody(longTarget.stdout).body) == testProblemTypePrefix + "uri-too-long")
        let bigHeader = try curl(["-i", "-H", "X-Big: " + String(repeating: "b", count: 20_000), "http://127.0.0.1:\(port)/"])
        #expect(statusAndBody(bigHeader.stdout).status == 431)
        #expect(problemType(statusAndBody(bigHeader.stdout).body) == testProblemTypePrefix + "request-header-fields-too-large")
    }

    @Test func framingAttacksGet400Problems() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let cases: [(String, String)] = [
            (
                "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                "conflicting-framing"
            ),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "duplicate-host"),
            ("GET / HTTP/1.1\r\n\r\n", "missing-host"),
        ]
        for (request, kind) in cases {
            let (status, body) = statusAndBody(rawExchange(port: port, Array(request.utf8)))
            #expect(status == 400, "\(kind)")
            #expect(problemType(body) == testProblemTypePrefix + kind)
        }
    }

    @Test func garbageIsSurvived() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let noise = (0..<2_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = rawExchange(port: port, noise, timeoutSeconds: 1)
        }
        _ = rawExchange(port: port, Array("HELLO\r\n\r\n".utf8), timeoutSeconds: 1)
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"]).stdout == "200")
    }

    @Test func keepAliveReusesTheConnection() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["-v", "http://127.0.0.1:\(port)/one", "http://127.0.0.1:\(port)/two"])
        #expect(result.stderr.contains("Re-using existing connection"))
    }

    @Test func ipv6LoopbackWorks() throws {
        let (server, port) = try startServer(
            HTTPServerConfiguration(host: "::1", port: 0, problemTypePrefix: testProblemTypePrefix))
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let result = try curl(["-g", "http://[::1]:\(port)/"])
        #expect(try JSONParser().parse(result.stdout).objectValue?["remoteAddress"]?.stringValue == "::1")
    }

    @Test func startReportsPortInUseAndBadAddress() throws {
        let (server, port) = try startServer()
        defer { server.shutdown(drainTimeout: .zero) }
        #expect(throws: HTTPServerError.addressInUse) {
            try HTTPServer(
                configuration: HTTPServerConfiguration(port: port, problemTypePrefix: testProblemTypePrefix),
                responder: TestResponder()
            ).start()
        }
        #expect(throws: HTTPServerError.invalidAddress) {
            try HTTPServer(
                configuration: HTTPServerConfiguration(host: "not an ip", port: 0, problemTypePrefix: testProblemTypePrefix),
                responder: TestResponder()
            ).start()
        }
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }

    @Test func openConnectionsCountsLiveConnections() throws {
        let (server, _) = try startServer()
        #expect(server.openConnections == 0)
        server.shutdown(drainTimeout: .zero)
        server.shutdown(drainTimeout: .zero)  // idempotent
        #expect(server.boundPort == nil)
    }
}
