import TestSelection
import Testing

@testable import HTTPServer

/// The libmicrohttpd 0.9.75 log lines the server answers for, as `transmit_error_response_len`
/// and `parse_connection_headers` format them.
@Suite(.tags(.inProcess)) struct LibraryHeadRejectionTests {
    @Test func poolOverflowAfterTheRequestLineIsA431Problem() throws {
        let line =
            "Error processing request (HTTP response code is 431 ('<html><head><title>Request too big</title>"
            + "</head><body>Request HTTP header is too big for the memory constraints of this webserver.</body></html>'))."
            + " Closing connection."
        let rejection = try #require(LibraryHeadRejection.rejection(forMessage: line))
        #expect(rejection.problem.status == 431)
        #expect(rejection.problem.kind == "request-header-fields-too-large")
        #expect(rejection.stage == .requestLineParsed)
    }

    @Test func poolOverflowInTheRequestLineIsA414ThatNoConnectionCanBeFoundFor() throws {
        let line = "Error processing request (HTTP response code is 414 ('<html>…</html>')). Closing connection."
        let rejection = try #require(LibraryHeadRejection.rejection(forMessage: line))
        #expect(rejection.problem.status == 414)
        #expect(rejection.problem.kind == "uri-too-long")
        #expect(rejection.stage == .beforeRequestLine)
    }

    @Test func contentLengthErrorsAreAnsweredOnceAndOtherLinesNotAtAll() throws {
        let contentLength = try #require(
            LibraryHeadRejection.rejection(forMessage: "Failed to parse `Content-Length' header. Closing connection."))
        #expect(contentLength.problem.kind == "invalid-content-length")
        #expect(contentLength.stage == .headComplete)
        // Logged after the lines above; answering them too would answer twice.
        for line in [
            "Error processing request (HTTP response code is 400 ('<html>…</html>')). Closing connection.",
            "Not enough memory in pool to parse cookies!",
            "Not enough memory in pool to allocate header record!",
            "Error processing request (HTTP response code is 4310 ('x')).",
        ] {
            #expect(LibraryHeadRejection.rejection(forMessage: line) == nil, "\(line)")
        }
    }
}
