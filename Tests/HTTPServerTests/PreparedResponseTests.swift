import TestSelection
import Testing

@testable import HTTPServer

/// Responses built once (`PreparedResponse`) and the server's prebuilt rejections.
@Suite(.tags(.live, .sanitizerRelevant, .optimized)) struct PreparedResponseTests {
    static let health = PreparedResponse(
        HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]), body: Array("ok".utf8)))
    /// Prepared but never registered with the server: sent the ordinary way.
    static let unregistered = PreparedResponse(HTTPResponse(status: 202, body: Array("unregistered".utf8)))

    struct Responder: HTTPResponder {
        var preparedResponses: [PreparedResponse] { [PreparedResponseTests.health] }

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            switch request.path {
            case "/health":
                return .now(PreparedResponseTests.health.response)
            case "/changed":
                var response = PreparedResponseTests.health.response
                response.headers.add(name: "X-Changed", value: "1")
                response.body = .bytes(Array("changed".utf8))
                return .now(response)
            default:
                return .now(PreparedResponseTests.unregistered.response)
            }
        }
    }

    @Test func changingAPreparedResponseUnlinksIt() {
        let linked = Self.health.response
        #expect(linked.prepared === Self.health)
        #expect(Self.health.parts.prepared == nil)
        var headers = linked
        headers.headers.add(name: "X", value: "y")
        #expect(headers.prepared == nil)
        var body = linked
        body.body = .bytes([])
        #expect(body.prepared == nil)
        var status = linked
        status.status = 500
        #expect(status.prepared == nil)
        #expect(linked == Self.health.parts)
    }

    @Test func theServerBuildsRegisteredResponsesAndFixedRejectionsOnce() {
        let core = ServerCore(
            configuration: HTTPServerConfiguration(
                port: 0, maxBodyBytes: 100, bodyLimitsByPath: ["/up": 7], problemTypePrefix: testProblemTypePrefix),
            responder: Responder(), logger: { _ in })
        #expect(core.prebuilt.native(for: Self.health) != nil)
        #expect(core.prebuilt.native(for: Self.unregistered) == nil)
        #expect(core.prebuilt.rejection(for: .payloadTooLarge(limit: 7)) != nil)
        #expect(core.prebuilt.rejection(for: .payloadTooLarge(limit: 100)) != nil)
        #expect(core.prebuilt.rejection(for: .payloadTooLarge(limit: 8)) == nil)
        #expect(core.prebuilt.rejection(for: FieldSyntaxViolation.invalidValue.problem) != nil)
        #expect(core.prebuilt.rejection(for: .shuttingDown) != nil)
    }

    @Test func preparedChangedAndUnregisteredResponsesAreSentAsTheyAre() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix),
            responder: Responder())
        let port = try server.start()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        // Twice on one connection: the prebuilt response is queued again, not consumed.
        let health = try curl(["-i", "http://127.0.0.1:\(port)/health", "http://127.0.0.1:\(port)/health"])
        #expect(health.stdout.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        #expect(health.stdout.components(separatedBy: "Content-Type: text/plain").count == 3)
        #expect(health.stdout.components(separatedBy: "Content-Length: 2\r\n").count == 3)
        #expect(statusAndBody(try curl(["-i", "http://127.0.0.1:\(port)/health"]).stdout).body == "ok")
        let changed = try curl(["-i", "http://127.0.0.1:\(port)/changed"]).stdout
        #expect(changed.contains("X-Changed: 1"))
        #expect(statusAndBody(changed).body == "changed")
        let other = statusAndBody(try curl(["-i", "http://127.0.0.1:\(port)/other"]).stdout)
        #expect(other.status == 202 && other.body == "unregistered")
    }

    @Test func aPrebuiltRejectionClosesTheConnection() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, problemTypePrefix: testProblemTypePrefix),
            responder: Responder())
        let port = try server.start()
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        // HTTP/1.1 without Host: the fixed missing-host 400, then the server closes.
        let answer = rawExchange(port: port, Array("GET /health HTTP/1.1\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        #expect(answer.contains("Connection: close"))
        #expect(answer.contains("missing-host"))
        #expect(!answer.contains("HTTP/1.1 200"))
    }
}
