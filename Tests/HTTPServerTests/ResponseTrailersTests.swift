import Foundation
import HTTPServer
import JSONSupport
import Synchronization
import TestSelection
import Testing

/// `HTTPResponse.trailers` over HTTP/1.1: trailer fields can only follow a chunked body, which
/// most of these responses are not, and a client may drop them; the server refuses such a
/// response with 500 instead of sending it without them (a gRPC status lives in its trailers).
@Suite(.tags(.live, .sanitizerRelevant)) struct ResponseTrailersTests {
    /// A one-chunk body stream that records whether the server closed it.
    final class OneChunk: HTTPBodyStream {
        private let closed = Mutex(false)
        var wasClosed: Bool { closed.withLock { $0 } }
        var contentLength: Int? { nil }

        func read(into buffer: UnsafeMutableRawBufferPointer, waker: any HTTPBodyStreamWaker) -> HTTPBodyStreamRead {
            .end
        }

        func close() { closed.withLock { $0 = true } }
    }

    /// Answers `/bytes` and `/stream` with a `grpc-status` trailer, `/plain` without.
    struct TrailerResponder: HTTPResponder {
        let stream: OneChunk

        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            var response: HTTPResponse
            switch request.path {
            case "/stream": response = HTTPResponse(status: 200, bodyStream: stream)
            default: response = .text("ok")
            }
            if request.path != "/plain" { response.trailers = HTTPHeaders([("grpc-status", "0")]) }
            return .now(response)
        }
    }

    @Test func aResponseWithTrailersIsRefusedWith500AndLogged() throws {
        let stream = OneChunk()
        let logs = LogCollector()
        let (server, port) = try startServer(responder: TrailerResponder(stream: stream), logs: logs)
        defer { server.shutdown(drainTimeout: .seconds(1)) }

        let plain = try curl(["-w", "\n%{http_code}", "http://127.0.0.1:\(port)/plain"])
        #expect(plain.stdout == "ok\n200", "the same response without trailers goes out")

        for path in ["/bytes", "/stream"] {
            let refused = try curl(["-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
            let lines = refused.stdout.split(separator: "\n")
            #expect(lines.last == "500", "\(path)")
            let problem = try JSONParser().parse(String(lines.first ?? "")).objectValue
            #expect(problem?["type"]?.stringValue == "\(testProblemTypePrefix)internal-error", "\(path)")
        }
        #expect(stream.wasClosed, "a refused streamed body is closed, not left to its producer")
        let refusals = logs.all.filter { $0.event == "http.invalid_response" }
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.fields["trailers"] == .number(1) && $0.fields["status"] == .number(200) })
    }

    @Test func trailersArePartOfAResponsesValue() {
        var withTrailers = HTTPResponse.text("ok")
        withTrailers.trailers = HTTPHeaders([("grpc-status", "0")])
        #expect(withTrailers != HTTPResponse.text("ok"))
        #expect(HTTPResponse.text("ok").trailers.count == 0)
    }
}
