import Testing

@testable import ShareIntake

@Suite("multipart/form-data")
struct MultipartTests {
    func body(_ parts: [(headers: String, value: String)], boundary: String = "XyZ") -> [UInt8] {
        var text = "preamble\r\n"
        for part in parts { text += "--\(boundary)\r\n\(part.headers)\r\n\r\n\(part.value)\r\n" }
        text += "--\(boundary)--\r\n"
        return Array(text.utf8)
    }

    func parse(_ bytes: [UInt8], contentType: String = "multipart/form-data; boundary=XyZ") throws(IntakeFailure) -> SharedPayload
    {
        try PayloadParser().parse(contentType: contentType, body: bytes)
    }

    @Test("Web Share Target form: empty url, URL taken from text")
    func shareTargetVector() throws {
        let payload = try parse(
            body([
                (#"Content-Disposition: form-data; name="url""#, ""),
                (#"Content-Disposition: form-data; name="text""#, "Title\nhttps://e.com/a"),
                ("Content-Disposition: form-data; name=title\r\nContent-Type: text/plain; charset=utf-8", "T"),
            ]))
        #expect(payload.urls == ["https://e.com/a"])
        #expect(payload.title == "T")
        #expect(payload.format == .multipart)
        #expect(
            try parse(
                body([(#"Content-Disposition: form-data; name="url""#, "https://q/")], boundary: "a b"),
                contentType: #"multipart/form-data; boundary="a b""#
            ).urls == ["https://q/"])
    }

    @Test("a field name is written as browsers write it: a backslash is itself, not an escape")
    func backslashInFieldName() throws {
        // What a browser or python-requests sends for a field named `\` (found by schemathesis):
        // an unknown field, ignored like any other, not a part without a name.
        let payload = try parse(
            body([
                (#"Content-Disposition: form-data; name="\""#, "ignored"),
                (#"Content-Disposition: form-data; name="url""#, "https://e.com/b"),
            ]))
        #expect(payload.urls == ["https://e.com/b"])
        #expect(MediaType(#"x/form-data; name="a\"; x=1"#, backslashEscapes: false)?.parameters["name"] == #"a\"#)
        #expect(MediaType(#"text/plain; a="b\"c""#)?.parameters["a"] == #"b"c"#)
    }

    @Test("file parts, missing names, broken framing and missing boundaries are refused")
    func strictness() {
        let cases: [[UInt8]] = [
            body([(#"Content-Disposition: form-data; name="f"; filename="a.txt""#, "x")]),
            body([("Content-Disposition: form-data; name=\"f\"\r\nContent-Type: image/png", "x")]),
            body([("Content-Disposition: form-data", "x")]),
            body([("Content-Disposition: attachment; name=\"url\"", "https://a/")]),
            Array("--XyZ\r\nContent-Disposition: form-data; name=\"url\"\r\n\r\nhttps://a/".utf8),
            Array("no boundary at all".utf8),
            Array("--XyZ\r\nContent-Disposition: form-data; name=\"url\"\r\n\r\n\u{FF}".utf8) + [0xFF]
                + Array("\r\n--XyZ--".utf8),
        ]
        for bytes in cases {
            #expect(throws: IntakeFailure.self) { try parse(bytes) }
        }
        #expect(throws: IntakeFailure.self) { try parse(body([]), contentType: "multipart/form-data") }
        let big = body([(#"Content-Disposition: form-data; name="text""#, String(repeating: "a", count: 270_000))])
        #expect(
            throws: IntakeFailure(
                .payloadTooLarge, "a multipart/form-data body may hold at most 262144 bytes",
                extensions: ["limit": .number(262_144)])
        ) { try parse(big) }
        let allowed = body([
            (#"Content-Disposition: form-data; name="text""#, "https://a.example/ " + String(repeating: "a", count: 200_000))
        ])
        #expect((try? parse(allowed))?.urls == ["https://a.example/"])
    }
}
