import Foundation
import TestSelection
import Testing

@testable import HTTPServer

/// The fields a responder sets reach the client, except those libmicrohttpd writes itself
/// (Content-Length, Transfer-Encoding, Date: any case), which are dropped rather than sent
/// twice or contradicting the framing.
@Suite(.tags(.live, .sanitizerRelevant)) struct ResponseHeaderTests {
    struct FieldSetter: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponderResult { .now(response(for: request)) }

        private func response(for request: HTTPRequest) -> HTTPResponse {
            var headers = HTTPHeaders.contentType("text/plain")
            // Managed by MHD, in unusual spellings.
            headers.add(name: "content-length", value: "999")
            headers.add(name: "DATE", value: "yesterday")
            headers.add(name: "transfer-ENCODING", value: "gzip")
            // Same lengths as the managed names (4, 14, 17), but other names: kept.
            headers.add(name: "Xate", value: "four")
            headers.add(name: "X-Fourteen-Chr", value: "fourteen")
            headers.add(name: "X-Seventeen-Chars", value: "seventeen")
            return HTTPResponse(status: 200, headers: headers, body: Array("hello".utf8))
        }
    }

    @Test func managedFieldsAreDroppedAndOthersKept() throws {
        let (server, port) = try startServer(responder: FieldSetter())
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let answer = rawExchange(port: port, Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
        let lines = head.components(separatedBy: "\r\n").map { $0.lowercased() }
        #expect(lines.filter { $0.hasPrefix("content-length:") } == ["content-length: 5"])
        #expect(!lines.contains("date: yesterday"))
        #expect(lines.filter { $0.hasPrefix("transfer-encoding:") }.isEmpty)
        #expect(lines.contains("content-type: text/plain"))
        #expect(lines.contains("xate: four"))
        #expect(lines.contains("x-fourteen-chr: fourteen"))
        #expect(lines.contains("x-seventeen-chars: seventeen"))
        #expect(answer.hasSuffix("\r\n\r\nhello"))
    }
}
