import Foundation
import TestSelection
import Testing

/// Finding 3 (server side) and finding 11: heads libmicrohttpd 0.9.75 accepts but a strict
/// parser must refuse, on both listeners, answered before the responder (and the origin)
/// sees anything.
@Suite("request smuggling shapes", .serialized, .tags(.live, .sanitizerRelevant))
struct RequestSmugglingTests {
    /// Heads for `target` (origin-form for the API, absolute-form for the proxy), each with
    /// the problem kind it must get.
    static func shapes(target: String) -> [(name: String, head: String, kind: String)] {
        let smuggled = "GET /logout HTTP/1.1\r\nHost: x\r\n\r\n"
        return [
            (
                "bare CR hiding a Content-Length",
                "POST \(target) HTTP/1.1\r\nHost: x\r\nX-Note: a\rContent-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n"
                    + smuggled, "invalid-header-field-value"
            ),
            (
                "space before the colon", "POST \(target) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
                "invalid-header-field-name"
            ),
            (
                "whitespace-led first field line", "GET \(target) HTTP/1.1\r\n X-A: b\r\nHost: x\r\n\r\n",
                "invalid-header-field-name"
            ),
            ("obs-fold", "GET \(target) HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\nX-B: d\r\n\r\n", "malformed-header-section"),
            (
                "NUL in a value", "GET \(target) HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}Content-Length: 0\r\n\r\n",
                "malformed-header-section"
            ),
            ("empty name", "GET \(target) HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n", "malformed-header-section"),
            ("method not a token", "G@T \(target) HTTP/1.1\r\nHost: x\r\n\r\n", "invalid-method"),
            (
                "Content-Length +5", "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello",
                "invalid-content-length"
            ),
            (
                "Content-Length 5, 5", "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello",
                "invalid-content-length"
            ),
            (
                "Content-Length -1", "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\nhello",
                "invalid-content-length"
            ),
            (
                "Content-Length beyond 64 bits",
                "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\nhello",
                "invalid-content-length"
            ),
        ]
    }

    /// Sends `head` and reads until the server closes; RawConnection's reads time out after
    /// 20 s, so an exchange ending well before that ended with the server's close.
    static func exchange(port: Int, _ head: String) throws -> String {
        let connection = try RawConnection(port: port)
        connection.send(head)
        var received: [UInt8] = []
        while true {
            let chunk = connection.receive(maxBytes: 65_536)
            if chunk.isEmpty { break }
            received += chunk
        }
        return String(decoding: received, as: UTF8.self)
    }

    static func check(port: Int, target: String, listener: String) throws {
        for shape in shapes(target: target) {
            let started = Date()
            let text = try exchange(port: port, shape.head)
            let label = "\(listener), \(shape.name)"
            #expect(text.components(separatedBy: "HTTP/1.1 ").count - 1 == 1, "\(label): \(text.debugDescription)")
            let response = Curl.parse(text)
            #expect(response.status == 400, "\(label)")
            #expect(response.headers["content-type"] == "application/problem+json", "\(label)")
            #expect(response.headers["connection"] == "close", "\(label)")
            #expect(response.body.contains("urn:navpolicyd:problem:\(shape.kind)"), "\(label): \(response.body)")
            #expect(Date().timeIntervalSince(started) < 10, "\(label): the server did not close the connection")
        }
    }

    @Test("API listener: each malformed head gets exactly one 400 problem and a close")
    func apiListener() throws {
        let daemon = try DaemonProcess()
        try Self.check(port: daemon.port, target: "/v1/decide?url=https://a.example/", listener: "api")
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
    }

    @Test("proxy listener: the same, and the origin never sees any of these requests")
    func proxyListener() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        try Self.check(port: port, target: origin.baseURL + "/smuggle-carrier", listener: "proxy")
        #expect(!origin.saw("/smuggle-carrier"), "\(origin.requests)")
        #expect(!origin.saw("/logout"), "\(origin.requests)")
        let after = try Curl.request(origin.baseURL + "/still-alive", ["-x", "127.0.0.1:\(port)"])
        #expect(after.status == 200)
        #expect(origin.saw("/still-alive"))
    }
}
