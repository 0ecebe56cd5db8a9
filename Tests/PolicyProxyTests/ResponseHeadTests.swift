import HTTPServer
import PolicyProxy
import Testing

/// Feeds `lines` to a fresh head the way libcurl's header callback does (CRLF each).
private func head(_ lines: [String]) -> ResponseHead {
    var head = ResponseHead()
    for line in lines {
        Array((line + "\r\n").utf8).withUnsafeBytes { head.consume(line: $0) }
    }
    return head
}

@Suite("origin response heads, parsed on bytes")
struct ResponseHeadTests {
    @Test("status line, fields with optional whitespace, and the blank line that completes the head")
    func finalHead() {
        let parsed = head(["HTTP/1.1 404 Not Found", "Content-Type:  text/html \t", "X-Empty:", "Set-Cookie: a=1", ""])
        #expect(parsed.isComplete)
        #expect(parsed.status == 404)
        #expect(parsed.headers["content-type"] == "text/html")
        #expect(parsed.headers["X-Empty"] == "")
        #expect(parsed.headers.count == 3)
    }

    @Test("HTTP/2 status lines have no reason phrase")
    func http2() {
        let parsed = head(["HTTP/2 204", ""])
        #expect(parsed.isComplete)
        #expect(parsed.status == 204)
    }

    @Test("interim 1xx heads are dropped with their fields; only the final head counts")
    func interimResponses() {
        let parsed = head(["HTTP/1.1 100 Continue", "X-Interim: yes", "", "HTTP/1.1 103 Early Hints", "Link: </a>", ""])
        #expect(!parsed.isComplete)
        let final = head([
            "HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", "Content-Length: 2", "", "Trailer-Field: ignored",
        ])
        #expect(final.isComplete)
        #expect(final.status == 200)
        #expect(final.headers["X-Interim"] == nil)
        #expect(final.headers["Trailer-Field"] == nil)
    }

    @Test("malformed status lines and fields are not taken for a head (and mark it malformed)")
    func malformed() {
        #expect(head(["HTTP/1.1 2000 Big", "A: b", ""]).isComplete == false)
        #expect(head(["HTTP/1.1 20x OK", ""]).status == 0)
        #expect(head(["HTTP/1.1 099 Low", ""]).status == 0)
        #expect(head(["Content-Type: text/html", ""]).isComplete == false)
        let spaced = head(["HTTP/1.1 200 OK", "Bad Name: x", "Bad\t: y", ": empty", "Good: z", ""])
        #expect(spaced.headers.count == 1)
        #expect(spaced.headers["Good"] == "z")
        #expect(spaced.isMalformed)
    }

    @Test("declared length: one plain decimal Content-Length without Transfer-Encoding")
    func declaredContentLength() {
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 1234", ""]).declaredContentLength == 1234)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 5", ""]).declaredContentLength == 5)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 6", ""]).declaredContentLength == nil)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 5", "Transfer-Encoding: chunked", ""]).declaredContentLength == nil)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: -1", ""]).declaredContentLength == nil)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 1e3", ""]).declaredContentLength == nil)
        #expect(head(["HTTP/1.1 200 OK", "Content-Length: 99999999999999999999", ""]).declaredContentLength == nil)
        #expect(head(["HTTP/1.1 200 OK", ""]).declaredContentLength == nil)
    }
}

@Suite("hop-by-hop fields")
struct HopByHopTests {
    @Test("fixed hop-by-hop fields, fields named in Connection, and excluded names are dropped; order is kept")
    func stripped() {
        let headers = HTTPHeaders([
            ("Connection", "keep-alive, X-Secret ,\tx-other"), ("Keep-Alive", "timeout=5"), ("X-Secret", "1"),
            ("x-OTHER", "2"), ("Content-Type", "text/html"), ("Transfer-Encoding", "chunked"), ("Date", "today"),
            ("Set-Cookie", "a=1"), ("Proxy-Authorization", "Basic x"), ("Set-Cookie", "b=2"),
        ])
        let kept = HopByHop.stripped(headers, excluding: ["date"])
        #expect(kept.map(\.name) == ["Content-Type", "Set-Cookie", "Set-Cookie"])
        #expect(kept.values(for: "set-cookie") == ["a=1", "b=2"])
    }
}

@Suite("hop-by-hop fields: Connection lists")
struct HopByHopConnectionListTests {
    @Test("Connection elements match whole names ignoring case and blanks; empty elements and prefixes match nothing")
    func connectionElements() {
        let headers = HTTPHeaders([
            ("Connection", ",, X-A ,x-b\t,"), ("connection", "X-C"), ("X-A", "1"), ("X-AB", "2"), ("x-b", "3"),
            ("X-c", "4"), ("X", "5"), ("", "6"),
        ])
        #expect(HopByHop.stripped(headers).map(\.name) == ["X-AB", "X", ""])
    }

    @Test("names of every length, long ones included, are matched against the list (lengths decide nothing alone)")
    func elementLengths() {
        // 63 and more bytes share one bit of the length mask: the bytes still decide.
        let long70 = String(repeating: "a", count: 70)
        let long64 = String(repeating: "a", count: 64)
        let long63 = String(repeating: "b", count: 63)
        let headers = HTTPHeaders([
            ("Connection", " \(long70.uppercased()) , x-one"), ("CONNECTION", "\(long63)"), ("X-One", "1"), ("X-Onf", "2"),
            (long70, "3"), (long64, "4"), (long63, "5"), (String(repeating: "b", count: 62), "6"), ("Y", "7"),
        ])
        #expect(HopByHop.stripped(headers).map(\.name) == ["X-Onf", long64, String(repeating: "b", count: 62), "Y"])
        // A second Connection field's elements count as much as the first's.
        let split = HTTPHeaders([("Connection", "close"), ("connection", "x-later"), ("X-Later", "1"), ("Close", "2")])
        #expect(HopByHop.stripped(split).map(\.name).isEmpty)
    }
}

@Suite("hop-by-hop fields: the fixed names")
struct HopByHopFixedNamesTests {
    @Test("every fixed name is dropped in any case; names of the same length, and longer or shorter spellings, are kept")
    func fixedNames() {
        var fields: [(String, String)] = []
        for name in HopByHop.fixed { fields += [(name, "1"), (name.uppercased(), "2")] }
        let kept = ["tf", "trailed", "upgrades", "connectiom", "keep-alivf", "proxy-connectioN2", "transfer-encodinf", "x"]
        for name in kept { fields.append((name, "3")) }
        #expect(HopByHop.stripped(HTTPHeaders(fields)).map(\.name) == kept)
    }
}
