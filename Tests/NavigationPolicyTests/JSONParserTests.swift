import JSONSupport
import Testing

@Suite("JSON parser and writer")
struct JSONParserTests {
    @Test("round trip keeps member order and escapes")
    func roundTrip() throws {
        let text = #"{"b":1,"a":[true,false,null,-2.5,"x\"\\\n\r\t\u0001\u001f\u007fé😀"],"c":{}}"#
        let value = try JSONParser().parse(text)
        #expect(value.serialized == #"{"b":1,"a":[true,false,null,-2.5,"x\"\\\n\r\t\u0001\u001f\u007fé😀"],"c":{}}"#)
        #expect(try JSONParser().parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test(
        "rejects what RFC 8259 rejects",
        arguments: [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "NaN", "'x'", "\"\u{0001}\"", "\"\\x\"", "\"\\ud800\"",
            "[1] [2]", "{\"a\" 1}", "tru", "1e999",
        ])
    func rejects(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(text) }
    }

    @Test("invalid UTF-8 and deep nesting are errors, not crashes")
    func hostile() {
        #expect(throws: JSONParseError.self) { try JSONParser().parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) {
            try JSONParser(maximumDepth: 16).parse(String(repeating: "[", count: 17) + String(repeating: "]", count: 17))
        }
        #expect(
            (try? JSONParser(maximumDepth: 16).parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)))
                != nil)
    }

    @Test(
        "duplicate members are errors by default, at any depth and however the key is escaped",
        arguments: [
            #"{"url":"a","url":"b"}"#, #"{"url":"a","\u0075rl":"b"}"#, #"[{"a":{"b":1,"b":2}}]"#,
            "{" + (0..<40).map { #""k\#($0)":0,"# }.joined() + #""k7":1}"#,
        ])
    func duplicateMembers(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(text) }
        #expect((try? JSONParser(rejectsDuplicateMembers: false).parse(text)) != nil)
    }

    @Test("the duplicate's error names the member and points at its second occurrence")
    func duplicateMemberError() throws {
        do {
            _ = try JSONParser().parse("{\n  \"url\": 1,\n  \"url\": 2\n}")
            Issue.record("a duplicate member was accepted")
        } catch {
            #expect(error.reason.contains("\"url\""))
            #expect(error.line == 3)
            #expect(error.column == 3)
        }
    }

    @Test("distinct members of a large object are all kept")
    func largeObject() throws {
        let text = "{" + (0..<100).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        #expect(try JSONParser().parse(text).objectValue?.members.count == 100)
    }
}
