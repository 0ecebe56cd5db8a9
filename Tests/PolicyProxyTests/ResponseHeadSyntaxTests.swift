import PolicyProxy
import Testing

/// Feeds raw lines (their own line ends) to a fresh head, as libcurl's header callback does.
private func head(_ lines: [String]) -> ResponseHead {
    var head = ResponseHead()
    for line in lines {
        Array(line.utf8).withUnsafeBytes { head.consume(line: $0) }
    }
    return head
}

/// Issue 26 item 12: an origin head that breaks RFC 9112's field syntax is marked, never mended.
@Suite("origin response heads: field syntax")
struct ResponseHeadSyntaxTests {
    @Test("a bare CR, NUL or DEL in a value or the status line, a CR before the line end: malformed")
    func controlCharacters() {
        for lines in [
            ["HTTP/1.1 200 OK\r\n", "X-Bad: a\rb\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X-Bad: ab\r\r\n", "\r\n"],
            ["HTTP/1.1 200 O\rK\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X-Bad: a\u{0}b\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X-Bad: a\u{7F}\r\n", "\r\n"],
            ["HTTP/1.1 100 Continue\r\n", "X-Bad: a\rb\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "\r\n"],
        ] {
            let parsed = head(lines)
            #expect(parsed.isMalformed, "\(lines)")
            #expect(parsed.headers["X-Bad"] == nil, "\(lines)")
        }
    }

    @Test("a line that is not a field (a bare LF's remnant, obs-fold) and a name that is not a token: malformed")
    func notFields() {
        for lines in [
            ["HTTP/1.1 200 OK\r\n", "X-Bad: a\n", "b\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X-Bad: a\r\n", " b\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X-Bad : a\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", "X\u{7F}Bad: a\r\n", "\r\n"],
            ["HTTP/1.1 200 OK\r\n", ": a\r\n", "\r\n"],
        ] {
            #expect(head(lines).isMalformed, "\(lines)")
        }
    }

    @Test("well-formed heads are not: HTAB and obs-text in values, LF-only line ends, empty values")
    func wellFormed() {
        let parsed = head([
            "HTTP/1.1 200 OK\n", "X-Tab: a\tb\r\n", "X-Text: caf\u{E9}\r\n", "X-Empty:\r\n", "X-Spaced:  v  \r\n", "\r\n",
        ])
        #expect(!parsed.isMalformed)
        #expect(parsed.isComplete)
        #expect(parsed.headers["X-Tab"] == "a\tb")
        #expect(parsed.headers["X-Spaced"] == "v")
        #expect(!head(["HTTP/2 204\r\n", "\r\n"]).isMalformed)
    }

    @Test("lines after the final head (trailers) are not judged")
    func trailersIgnored() {
        #expect(!head(["HTTP/1.1 200 OK\r\n", "\r\n", "Bad Trailer\r\n"]).isMalformed)
    }
}
