import Testing

@testable import ShareIntake

/// Issue 26, item 13: a media type or part header that names a parameter twice has two
/// meanings (first wins here, last elsewhere), so it is refused, not read.
@Suite("intake: one meaning per parameter")
struct OneMeaningTests {
    func kind(_ contentType: String, _ body: String) -> IntakeFailure.Kind? {
        do {
            _ = try PayloadParser().parse(contentType: contentType, body: Array(body.utf8))
            return nil
        } catch {
            return error.kind
        }
    }

    @Test("MediaType names the first repeated parameter, case-insensitively")
    func repeatedParameter() {
        #expect(MediaType("multipart/form-data; boundary=a; boundary=b")?.repeatedParameter == "boundary")
        #expect(MediaType("text/plain; charset=utf-8; CHARSET=latin1")?.repeatedParameter == "charset")
        #expect(MediaType("x/form-data; name=\"a\"; name=\"b\"", backslashEscapes: false)?.repeatedParameter == "name")
        #expect(MediaType("multipart/form-data; boundary=a; charset=utf-8")?.repeatedParameter == nil)
        // A `;` inside a quoted value is not a second parameter.
        #expect(MediaType("x/form-data; name=\"a; name=b\"", backslashEscapes: false)?.repeatedParameter == nil)
    }

    @Test("repeated boundary, charset, name, or part header: malformed-body")
    func refused() {
        let url = "https://share.example/x"
        func multipart(_ headers: String) -> String { "--b\r\n\(headers)\r\n\r\n\(url)\r\n--b--\r\n" }
        #expect(kind("application/json; charset=utf-8; charset=utf-8", #"{"url":"\#(url)"}"#) == .malformedBody)
        #expect(kind("text/plain; charset=utf-8; charset=latin1", url) == .malformedBody)
        #expect(
            kind("multipart/form-data; boundary=b; boundary=c", multipart(#"Content-Disposition: form-data; name="url""#))
                == .malformedBody)
        #expect(
            kind("multipart/form-data; boundary=b", multipart(#"Content-Disposition: form-data; name="url"; name="text""#))
                == .malformedBody)
        #expect(
            kind(
                "multipart/form-data; boundary=b",
                multipart("Content-Disposition: form-data; name=\"url\"\r\nContent-Disposition: form-data; name=\"text\""))
                == .malformedBody)
        #expect(
            kind(
                "multipart/form-data; boundary=b",
                multipart(
                    "Content-Disposition: form-data; name=\"url\"\r\nContent-Type: text/plain; charset=utf-8; charset=utf-16"))
                == .malformedBody)
        #expect(kind("multipart/form-data; boundary=b", multipart(#"Content-Disposition: form-data; name="url""#)) == nil)
    }
}
