import TestSelection
import Testing

@testable import HTTPServer

@Suite(.tags(.inProcess)) struct RequestHeadValidationTests {
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

    /// Outside attack 16, F5: the codings were split and lower-cased as `Character`s. Outside
    /// attack 17, F1: `chunked,` or `chunked ` passed here while libmicrohttpd framed no body.
    @Test func transferEncodingIsReadByBytes() {
        for accepted in ["chunked", "CHUNKED", "cHuNkEd"] {
            #expect(RequestHeadValidation.isChunkedOnly([accepted]), "\(accepted)")
        }
        let refused = [
            ["chunked, chunked"], ["chunked", "chunked"], ["gzip, chunked"], ["chun\u{212A}ed"], ["chunked\u{0301}"],
            [","], ["chunked, "], ["chunked;q=1"], ["chunkef"], ["chunke"], [String(repeating: ",\u{0301}", count: 4_000)],
            ["chunked,"], [", chunked"], ["chunked "], [" chunked\t"], ["", "chunked"], [],
        ]
        for values in refused { #expect(!RequestHeadValidation.isChunkedOnly(values), "\(values)") }
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

    @Test("a tunnelling server hands CONNECT on, with every other check still made")
    func connectOnATunnellingServer() throws {
        let tunnelling = RequestHeadValidation(maxTargetBytes: 64, maxHeaderBytes: 1024, acceptsConnect: true)
        func kind(_ headers: [(String, String)]) -> String? {
            do throws(ProblemDetails) {
                _ = try tunnelling.validate(
                    method: "CONNECT", rawTarget: "a.test:443", httpVersion: "HTTP/1.1", headers: HTTPHeaders(headers),
                    headerBytes: 20)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(kind([("Host", "a.test:443")]) == nil)
        #expect(kind([]) == "missing-host")
        #expect(kind([("Host", "a"), ("Host", "b")]) == "duplicate-host")
    }
}

@Suite(.tags(.inProcess)) struct FieldSyntaxTests {
    private let validation = RequestHeadValidation(maxTargetBytes: 64, maxHeaderBytes: 1024)

    private func problemKind(method: String = "GET", target: String = "/", fieldSyntax: FieldSyntaxViolation? = nil)
        -> String?
    {
        do {
            _ = try validation.validate(
                method: method, rawTarget: target, httpVersion: "HTTP/1.1", headers: HTTPHeaders([("Host", "a")]),
                headerBytes: 10, fieldSyntax: fieldSyntax)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func namesMustBeTokens() {
        for name in ["Host", "X-Forwarded-For", "a", "!#$%&'*+-.^_`|~09azAZ"] {
            #expect(RequestHeadValidation.isToken(name.utf8), "\(name)")
        }
        for name in ["", " X-A", "Transfer-Encoding ", "X A", "X-A\t", "X:A", "X(A)", "X\"A", "X\u{0}A", "Ä", "X\u{7F}"] {
            #expect(!RequestHeadValidation.isToken(name.utf8), "\(name.debugDescription)")
        }
    }

    @Test func valuesMustNotHoldControlCharacters() {
        for value in ["", "a b\tc", "ünïcödé", "~!@#"] {
            #expect(RequestHeadValidation.isFieldValue(value.utf8), "\(value)")
        }
        for value in ["a\rContent-Length: 0", "a\nb", "a\u{0}b", "a\u{1}b", "a\u{7F}", "\u{1B}[31m"] {
            #expect(!RequestHeadValidation.isFieldValue(value.utf8), "\(value.debugDescription)")
        }
    }

    /// The word-at-a-time target check against the byte rule, for every byte value at every
    /// position of a 19-byte target (two whole words and a tail), and every pair of values in
    /// one word (a borrow from one byte must not hide or fake another).
    @Test func targetCheckAgreesWithTheByteRuleForEveryByte() {
        func byteRule(_ bytes: [UInt8]) -> Bool { !bytes.isEmpty && !bytes.contains { $0 <= 0x20 || $0 == 0x7F } }
        func wordCheck(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { RequestHeadValidation.isRequestTarget($0) } }
        var mismatches = 0
        for value in 0...255 {
            for position in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                bytes[position] = UInt8(value)
                if wordCheck(bytes) != byteRule(bytes) { mismatches += 1 }
            }
        }
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second), 0x61, 0x61, 0x61, 0x61, 0x61, 0x61]
                if wordCheck(bytes) != byteRule(bytes) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(!wordCheck([]))
    }

    @Test func methodsTargetsAndFieldViolationsGet400s() {
        #expect(problemKind() == nil)
        #expect(problemKind(method: "M-SEARCH") == nil)
        #expect(problemKind(method: "G(T") == "invalid-method")
        #expect(problemKind(method: "GET\t/") == "invalid-method")
        #expect(problemKind(method: "") == "invalid-method")
        #expect(problemKind(target: "/a b") == "invalid-request-target")
        #expect(problemKind(target: "/a\rb") == "invalid-request-target")
        #expect(problemKind(target: "") == "invalid-request-target")
        #expect(problemKind(target: "/ä?q=ü") == nil)
        #expect(problemKind(fieldSyntax: .invalidName) == "invalid-header-field-name")
        #expect(problemKind(fieldSyntax: .invalidValue) == "invalid-header-field-value")
        #expect(problemKind(fieldSyntax: .unaccountedBytes) == "malformed-header-section")
        for violation in [FieldSyntaxViolation.invalidName, .invalidValue, .unaccountedBytes] {
            #expect(violation.problem.status == 400)
        }
    }
}

/// HeaderSectionLayout on heads laid out the way libmicrohttpd 0.9.75 leaves them after
/// parsing in place: colon and line ends replaced by NULs.
@Suite(.tags(.inProcess)) struct HeaderSectionLayoutTests {
    /// One reported field: offsets into the head buffer.
    struct Field {
        var name: Int
        var nameLength: Int
        var value: Int
        var valueLength: Int
    }

    /// Parses `head` like MHD (CRLF or LF end lines, the first colon ends the name, OWS is
    /// skipped; NUL-terminated values are cut at the NUL), returning the mutated buffer,
    /// the version offset and the fields MHD would report. `drop` leaves fields out and
    /// `relocate` moves a name outside the head, as obs-fold does.
    private func check(_ head: String, drop: Set<Int> = [], relocateName: Int? = nil) -> Bool {
        var bytes = Array(head.utf8)
        var lines: [(start: Int, length: Int)] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                let hasCR = index > start && bytes[index - 1] == 0x0D
                lines.append((start, index - start - (hasCR ? 1 : 0)))
                if hasCR { bytes[index - 1] = 0 }
                bytes[index] = 0
                start = index + 1
            }
            index += 1
        }
        guard let requestLine = lines.first else { return false }
        let versionStart = (bytes[requestLine.start..<(requestLine.start + requestLine.length)].lastIndex(of: 0x20) ?? 0) + 1
        let versionLength = requestLine.start + requestLine.length - versionStart
        var fields: [Field] = []
        for line in lines.dropFirst() where line.length > 0 {
            guard let colon = bytes[line.start..<(line.start + line.length)].firstIndex(of: 0x3A) else { continue }
            bytes[colon] = 0
            var value = colon + 1
            while value < line.start + line.length, bytes[value] == 0x20 || bytes[value] == 0x09 { value += 1 }
            let valueEnd = bytes[value..<(line.start + line.length)].firstIndex(of: 0) ?? (line.start + line.length)
            fields.append(Field(name: line.start, nameLength: colon - line.start, value: value, valueLength: valueEnd - value))
        }
        let elsewhere = [UInt8](repeating: 0x41, count: 64)
        return bytes.withUnsafeBytes { buffer -> Bool in
            elsewhere.withUnsafeBytes { other -> Bool in
                guard let base = buffer.baseAddress, let otherBase = other.baseAddress else { return false }
                var layout = HeaderSectionLayout(
                    start: base, size: bytes.count, version: base + versionStart, versionLength: versionLength)
                for (number, field) in fields.enumerated() where !drop.contains(number) {
                    let name = number == relocateName ? otherBase : base + field.name
                    guard
                        layout.accept(
                            name: name, nameLength: field.nameLength, value: base + field.value, valueLength: field.valueLength)
                    else { return false }
                }
                return layout.finish()
            }
        }
    }

    @Test func intactHeadsAreAccepted() {
        #expect(check("GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\r\n"))
        #expect(check("GET / HTTP/1.1\nHost: x\nX-A:b\n\n"))
        #expect(check("GET / HTTP/1.1\r\nHost:  \t x  \r\nEmpty:\r\n\r\n"))
        #expect(check("GET / HTTP/1.0\r\n\r\n"))
    }

    @Test func hiddenBytesAreFound() {
        // A NUL cuts the value short: the rest of the line is unaccounted for.
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}Content-Length: 0\r\nX-B: c\r\n\r\n"))
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}hidden\r\n\r\n"))
        // A line MHD did not report (an empty name, or an obs-fold continuation).
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\n: b\r\nX-B: c\r\n\r\n", drop: [1]))
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n", drop: [1]))
        // obs-fold: the name is copied elsewhere in MHD's pool.
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\r\n", relocateName: 1))
        // Something other than whitespace between the colon and the value.
        #expect(!check("GET / HTTP/1.1\r\nHost: x\r\n\r\nextra"))
    }
}
