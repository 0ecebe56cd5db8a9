import JSONSupport
import Testing

@testable import ShareIntake

/// The format rules of issue 4 and the reference's test vectors, without sockets.
@Suite("Intake payload parsing")
struct PayloadParserTests {
    let parser = PayloadParser()

    func parse(_ contentType: String?, _ body: String) throws(IntakeFailure) -> SharedPayload {
        try parser.parse(contentType: contentType, body: Array(body.utf8))
    }

    func failure(_ contentType: String?, _ body: [UInt8]) -> IntakeFailure? {
        do {
            _ = try parser.parse(contentType: contentType, body: body)
            return nil
        } catch {
            return error
        }
    }

    func kind(_ contentType: String?, _ body: String) -> IntakeFailure.Kind? {
        failure(contentType, Array(body.utf8))?.kind
    }

    @Test("plain JSON: url, title, text, tags; url may come from text or title")
    func plainJSON() throws {
        let full = try parse(
            "application/json", #"{"url":"https://example.com/a","title":"T","text":"x","tags":["a"," a ","b"]}"#)
        #expect(full == SharedPayload(format: .json, urls: ["https://example.com/a"], title: "T", text: "x", tags: ["a", "b"]))
        #expect(
            try parse("application/json", #"{"text":"Look at this https://example.com/a."}"#).urls == ["https://example.com/a"])
        #expect(
            try parse("application/json; charset=UTF-8", #"{"text":"Source: Collider (https://collider.com/x)"}"#).urls == [
                "https://collider.com/x"
            ])
        #expect(try parse("application/json", #"{"title":"see https://t.example/"}"#).urls == ["https://t.example/"])
        #expect(kind("application/json", #"{"title":"nothing here"}"#) == .noURLFound)
        #expect(kind("application/json", #"{"url":5}"#) == .malformedBody)
        #expect(kind("application/json", #"{"tags":"a","url":"https://a/"}"#) == .malformedBody)
        #expect(kind("application/json", "[]") == .malformedBody)
        #expect(kind("application/json", "{") == .malformedBody)
    }

    @Test("transport rules: media type, charset, size, UTF-8, NUL, depth")
    func transport() {
        let unsupported = failure("application/xml", Array("<a/>".utf8))
        #expect(unsupported?.kind == .unsupportedMediaType)
        #expect(unsupported?.extensions["accepted"] != nil)
        #expect(kind(nil, "{}") == .unsupportedMediaType)
        #expect(kind("application/json; charset=latin1", "{}") == .unsupportedMediaType)
        let big = #"{"url":"https://a.example/","text":""# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(kind("application/json", big) == .payloadTooLarge)
        #expect(kind("text/uri-list", String(repeating: "#", count: 65_537)) == .payloadTooLarge)
        #expect(failure("application/json", [0x7B, 0xFF, 0x7D])?.kind == .malformedBody)
        #expect(failure("text/uri-list", Array("https://a.example/\u{0}".utf8))?.kind == .malformedBody)
        #expect(kind("application/json", #"{"url":"https://a.example/","title":"\u0000"}"#) == .malformedBody)
        #expect(kind("application/json", #"{"url":"https://a/","x":"\uD800"}"#) == .malformedBody)
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(kind("application/json", #"{"url":"https://a/","x":"# + deep + "}") == .malformedBody)
        let shallow = String(repeating: "[", count: 14) + String(repeating: "]", count: 14)
        // Within the depth limit the body parses; it then fails only for its unknown member.
        let unknown = failure("application/json", Array((#"{"url":"https://a/","x":"# + shallow + "}").utf8))
        #expect(unknown?.extensions["pointer"] == .string("/x"), "\(String(describing: unknown))")
        #expect(
            failure("application/json", Array((#"{"url":"https://a/","x":"# + deep + "}").utf8))?.extensions["pointer"] == nil)
    }

    @Test("urlencoded: + is a space, url from text, strict UTF-8")
    func urlEncoded() throws {
        let form = try parse("application/x-www-form-urlencoded", "title=My+News&url=http%3A%2F%2Fe.com%2Fn")
        #expect(form.title == "My News")
        #expect(form.urls == ["http://e.com/n"])
        #expect(form.format == .formURLEncoded)
        #expect(
            try parse("application/x-www-form-urlencoded", "url=&text=Title%0Ahttps%3A%2F%2Fe.com%2Fa").urls == [
                "https://e.com/a"
            ])
        #expect(kind("application/x-www-form-urlencoded", "url=%FF") == .malformedBody)
        #expect(kind("application/x-www-form-urlencoded", "url=https://a/%00") == .malformedBody)
        #expect(kind("application/x-www-form-urlencoded", "title=none") == .noURLFound)
    }

    @Test("text/uri-list: CRLF or LF, comments only at line start, title from the comment before")
    func uriList() throws {
        let list = try parse("text/uri-list", "#c\r\nhttps://a.example/\r\nhttps://b.example/")
        #expect(list.urls == ["https://a.example/", "https://b.example/"])
        #expect(list.title == "c")
        #expect(try parse("text/uri-list", "https://a.example/#frag\n").urls == ["https://a.example/#frag"])
        #expect(try parse("text/uri-list", "\n\n# only\n  https://a.example/  \n").urls == ["https://a.example/"])
        #expect(kind("text/uri-list", "# nothing\r\n\r\n") == .noURLFound)
    }

    @Test("text/plain is free text")
    func plainText() throws {
        #expect(try parse("text/plain", "read https://a.example/x!").urls == ["https://a.example/x"])
        #expect(kind("text/plain", "no link") == .noURLFound)
    }
}
