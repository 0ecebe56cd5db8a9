import Foundation
import TestSelection
import Testing

/// Heads within the documented byte limits (8192-byte target, 16384 bytes of header fields)
/// that do not fit libmicrohttpd's default 32 KiB connection pool, because MHD keeps a
/// 64-byte record for every header field and every query parameter, parsed before the
/// access handler runs. They must get a problem+json answer (or be served), never MHD's
/// HTML page and never silence until the head timeout (10 s by default).
@Suite("connection pool overflow", .serialized, .tags(.live, .sanitizerRelevant))
struct PoolOverflowTests {
    /// A 1000-field head after an 8192-byte target: MHD runs out of pool on a field record.
    static let manyFields: String = {
        let target = "/healthz?pad=" + String(repeating: "a", count: 8192 - "/healthz?pad=".utf8.count)
        let fields = (0..<1000).map { "X-F\($0): v\r\n" }.joined()
        return "GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(fields)\r\n"
    }()

    /// 1000 query parameters: MHD runs out of pool inside the request line.
    static let manyParameters: String = {
        let target = "/healthz?" + (0..<1000).map { "p\($0)=1" }.joined(separator: "&")
        return "GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    }()

    /// Sends `head`; expects one answer within 5 s: 200, or a problem+json 414/431.
    static func expectProblemOrSuccess(port: Int, _ head: String, _ label: String) throws {
        let started = Date()
        let text = try RequestSmugglingTests.exchange(port: port, head)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 5, "\(label): the server answered nothing for \(elapsed) s")
        #expect(
            text.components(separatedBy: "HTTP/1.1 ").count - 1 == 1, "\(label): \(String(text.prefix(400)).debugDescription)")
        let response = Curl.parse(text)
        if response.status == 200 { return }
        #expect([414, 431].contains(response.status), "\(label): status \(response.status)")
        #expect(response.headers["content-type"] == "application/problem+json", "\(label): \(response.headers)")
        #expect(response.headers["connection"] == "close", "\(label)")
        let kind = response.json?["type"] as? String
        #expect(
            kind == "urn:navpolicyd:problem:request-header-fields-too-large" || kind == "urn:navpolicyd:problem:uri-too-long",
            "\(label): \(response.body)")
    }

    @Test("default pool: 1000 tiny header fields after an 8192-byte target get problem+json")
    func manyHeaderFields() throws {
        #expect(Self.manyFields.utf8.count < 8192 + 16384 + 100)
        let daemon = try DaemonProcess()
        try Self.expectProblemOrSuccess(port: daemon.port, Self.manyFields, "1000 fields")
        #expect(daemon.waitForLog { $0.contains("http.request_rejected") && $0.contains("\"answered\":true") } != nil)
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
    }

    @Test("default pool: 1000 query parameters get problem+json, not a hanging connection")
    func manyQueryParameters() throws {
        #expect(Self.manyParameters.utf8.count < 8192)
        let daemon = try DaemonProcess()
        try Self.expectProblemOrSuccess(port: daemon.port, Self.manyParameters, "1000 parameters")
        #expect(try Curl.request(daemon.baseURL + "/healthz").status == 200)
    }

    @Test("both shapes on one keep-alive connection after a served request")
    func afterKeepAlive() throws {
        let daemon = try DaemonProcess()
        for head in [Self.manyParameters, Self.manyFields] {
            let connection = try RawConnection(port: daemon.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(connection.receiveResponse().status == 200)
            connection.send(head)
            let response = connection.receiveResponse()
            #expect(response.status == 431, "\(response.status) \(response.body)")
            #expect(response.headers["content-type"] == "application/problem+json")
        }
    }
}
