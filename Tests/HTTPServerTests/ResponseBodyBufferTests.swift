import CMicroHTTPD
import TestSelection
import Testing

@testable import HTTPServer

/// A keep-alive connection's response bodies are lent to libmicrohttpd from one reusable
/// buffer, never overwritten while MHD still holds the response made from it.
@Suite(.tags(.live, .sanitizerRelevant, .optimized)) struct ResponseBodyBufferTests {
    @Test func theBufferIsLentToOneResponseAtATime() throws {
        let buffer = ResponseBodyBuffer()
        let first = try #require(buffer.lend(Array("first".utf8)))
        // Still held by MHD: a second body must not overwrite the first one's bytes.
        #expect(buffer.lend(Array("second".utf8)) == nil)
        MHD_destroy_response(first)
        let second = try #require(buffer.lend(Array("second".utf8)))
        MHD_destroy_response(second)
        // Empty and oversized bodies are left to MHD's copying path.
        #expect(buffer.lend([]) == nil)
        #expect(buffer.lend([UInt8](repeating: 0x61, count: ResponseBodyBuffer.largestLentBody + 1)) == nil)
    }

    @Test func theBufferOutlivesItsOwnerWhileMHDHoldsTheResponse() throws {
        var buffer: ResponseBodyBuffer? = ResponseBodyBuffer()
        weak let observed = buffer
        let response = try #require(buffer?.lend(Array("kept".utf8)))
        buffer = nil
        #expect(observed != nil)
        MHD_destroy_response(response)
        #expect(observed == nil)
    }

    /// `/<count>/<letter>`: `count` copies of `letter`.
    struct SizedBodies: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponderResult { .now(response(for: request)) }

        private func response(for request: HTTPRequest) -> HTTPResponse {
            let parts = request.path.split(separator: "/")
            guard parts.count == 2, let count = Int(parts[0]), let letter = parts[1].utf8.first else {
                return HTTPResponse(status: 404)
            }
            return HTTPResponse(status: 200, body: [UInt8](repeating: letter, count: count))
        }
    }

    @Test func keepAliveResponsesOfChangingSizesArriveIntact() throws {
        let (server, port) = try startServer(responder: SizedBodies())
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let steps: [(method: String, count: Int, letter: Character)] = [
            ("GET", 300, "a"), ("GET", 5_000, "b"), ("GET", 40, "c"), ("HEAD", 700, "d"),
            ("GET", 20_000, "e"), ("GET", 9_000, "f"), ("GET", 100, "g"),
        ]
        var request = ""
        for (index, step) in steps.enumerated() {
            let close = index == steps.count - 1 ? "Connection: close\r\n" : ""
            request += "\(step.method) /\(step.count)/\(step.letter) HTTP/1.1\r\nHost: x\r\n\(close)\r\n"
        }
        let answer = rawExchange(port: port, Array(request.utf8))
        // Every body in order, each exactly as long as announced; HEAD carries none.
        var rest = Substring(answer)
        for step in steps {
            // MHD writes Content-Length as the head's last field.
            let head = try #require(rest.range(of: "Content-Length: \(step.count)\r\n\r\n"))
            rest = rest[head.upperBound...]
            if step.method == "HEAD" { continue }
            let body = String(repeating: step.letter, count: step.count)
            #expect(rest.hasPrefix(body), "body of \(step.count) × \(step.letter)")
            rest = rest.dropFirst(step.count)
        }
        #expect(rest.isEmpty)
    }
}
