import Testing

@testable import HTTPServer

@Suite struct RequestHeadValidationTests {
    private let validation = RequestHeadValidation(maxTargetBytes: 16, maxHeaderBytes: 64)

    private func problemKind(
        method: String = "GET", target: String = "/", version: String = "HTTP/1.1", _ fields: [(String, String)],
        headerBytes: Int = 10
    ) -> String? {
        do {
            _ = try validation.validate(
                method: method, rawTarget: target, httpVersion: version, headers: HTTPHeaders(fields), headerBytes: headerBytes)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func acceptsAPlainRequestAndReturnsContentLength() throws {
        let length = try validation.validate(
            method: "POST", rawTarget: "/x", httpVersion: "HTTP/1.1",
            headers: HTTPHeaders([("Host", "a"), ("Content-Length", " 12 ")]), headerBytes: 20)
        #expect(length == 12)
    }

    @Test func rejectsEachFramingAndSizeViolation() {
        #expect(problemKind(target: "/" + String(repeating: "a", count: 16), [("Host", "a")]) == "uri-too-long")
        #expect(problemKind([("Host", "a")], headerBytes: 65) == "request-header-fields-too-large")
        #expect(problemKind([("Host", "a"), ("host", "b")]) == "duplicate-host")
        #expect(problemKind([]) == "missing-host")
        #expect(problemKind(version: "HTTP/1.0", []) == nil)
        #expect(problemKind([("Host", "a"), ("Content-Length", "3"), ("Transfer-Encoding", "chunked")]) == "conflicting-framing")
        #expect(problemKind([("Host", "a"), ("Transfer-Encoding", "gzip, chunked")]) == "unsupported-transfer-encoding")
        #expect(problemKind([("Host", "a"), ("Transfer-Encoding", "Chunked")]) == nil)
        #expect(problemKind([("Host", "a"), ("Content-Length", "3, 4")]) == "invalid-content-length")
        #expect(problemKind([("Host", "a"), ("Content-Length", "3"), ("Content-Length", "3")]) == nil)
        #expect(problemKind([("Host", "a"), ("Content-Length", "-1")]) == "invalid-content-length")
        #expect(problemKind([("Host", "a"), ("Content-Length", "99999999999999999999999")]) == "invalid-content-length")
        #expect(problemKind(method: "CONNECT", target: "a:443", [("Host", "a:443")]) == "connect-not-supported")
    }
}
