import JSONSupport
import NavigationPolicy
import Testing

/// The config compiler reads `handlers` element by element (``JSONStreamReader``) instead of
/// parsing the whole file first; these pin that it says exactly what parse-then-compile says.
@Suite("Streamed config reading")
struct StreamedConfigReadingTests {
    /// Configs whose issues cover every place the streamed path differs from the tree path:
    /// syntax errors before, inside and after `handlers` (after handler errors too), nesting
    /// limits inside a handler, duplicate and non-array `handlers`, a non-object root.
    static let configs: [String] = [
        #"{"handlers":[{"name":"a","type":"allow"},{"name":"a","type":"nope"},3],"defaultDecision":"x","bogus":1,"handlers":5}"#,
        #"{"handlers":[{"name":"a","type":"allow"},{"name":"b","type":"allow",}]}"#,
        #"{"handlers":[{"name":"a","type":"allow"}]} x"#,
        #"{"handlers":[{"name":"a","type":"logut"}], "defaultDecision": "deny", }"#,
        #"{"handlers":[{"name":"a","type":"logut"} {"name":"b"}]}"#,
        #"{"handlers":[{"name":"a","type":"allow"},]}"#,
        #"{"handlers":[1 2]}"#, #"{"handlers" [ ]}"#, #"{"handlers":[ ]  ,"defaultDecision":"cancel"  }"#,
        #"{"handlers":{"a":1},"handlers":[]}"#, #"{"handlers":[],"handlers":[{"type":"x"}]}"#,
        #"{"handlers":null}"#, #"{"handlers":["#, #"{"handlers":[{"#, #"{"handlers""#, #"{"#, "", "  ", "[1,2]", "7",
        #"{"handlers":[\#(String(repeating: "[", count: 31))1\#(String(repeating: "]", count: 31))]}"#,
        #"{"handlers":[\#(String(repeating: "[", count: 30))1\#(String(repeating: "]", count: 30))]}"#,
        #"{"server":3,"handlers":[{"name":"x","type":"allow","match":{"paths":["/a*"],"hosts":["(.*\\.)?evil\\.com$"]}}]}"#,
        #"{"handlers":[{"name":"a","type":"allow","match":{"hosts":["a.com"],"paths":["/x"]},"name":"z"}],"proxy":[]}"#,
        "\u{FEFF}{\"handlers\":[]}", "{\"handlers\":[{\"name\":\"\u{1}\"}]}", #"{"handlers":[{"name":"a\u00"}]}"#,
        #"{"defaultDecision":"cancel","handlers":[{"name":"l","type":"logout","match":{"paths":["/logout"]}},{"name":"p","type":"payment-redirect","match":{"hosts":["pay.example"]},"location":"https://c.example/?t={url}"}]}"#,
    ]

    @Test("issues are exactly those of parsing the whole document, then compiling it", arguments: configs)
    func sameIssuesAsTreeCompile(config: String) {
        let bytes = Array(config.utf8)
        #expect(compileIssues { () throws(ConfigError) in try PolicyCompiler().compile(bytes) } == treeIssues(bytes))
    }

    @Test("invalid UTF-8 inside a handler is the same syntax error")
    func invalidUTF8() {
        let bytes = Array(#"{"handlers":[{"name":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        #expect(compileIssues { () throws(ConfigError) in try PolicyCompiler().compile(bytes) } == treeIssues(bytes))
        #expect(treeIssues(bytes).count == 1)
    }

    @Test("a valid config compiles to the same chain")
    func sameChain() throws {
        let bytes = Array(Self.configs[Self.configs.count - 1].utf8)
        let streamed = try PolicyCompiler().compile(bytes)
        let document = try JSONParser(maximumDepth: 32, rejectsDuplicateMembers: false).parse(bytes)
        let tree = try PolicyCompiler().compile(document)
        #expect(streamed.links.map(\.name) == ["l", "p"])
        #expect(streamed.links.map(\.name) == tree.links.map(\.name))
        #expect(streamed.defaultVerdict == .cancel)
        #expect(try decide(streamed, "https://pay.example/x").verdict == decide(tree, "https://pay.example/x").verdict)
        #expect(try decide(streamed, "https://a.example/logout").handler == "l")
    }

    /// Texts that walk every structural step of the reader, valid and not.
    static let texts: [String] = [
        #"{"b":1,"a":[true,false,null,-2.5,"x\"\\"],"c":{},"d":[]}"#, "[]", "{}", " [ 1 , [ ] , { } ] ", "[1,]",
        "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{1:2}", "[", "{", "{\"a\":", "[1] [2]", "[1] x",
        "[[[[[[[[1]]]]]]]]", "[[[[[[[[[1]]]]]]]]]", "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":[]}}}}}}}",
        "[\"\\q\"]", "[01]", "", "  ",
    ]

    @Test("the reader gives the parser's value or the parser's error", arguments: texts)
    func readerMatchesParser(text: String) {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JSONParseError) in try JSONParser(maximumDepth: 8).parse(bytes) }
        let streamed = Result { () throws(JSONParseError) in
            var reader = try JSONStreamReader(bytes, maximumDepth: 8)
            let value = try Self.walk(&reader)
            try reader.finish()
            return value
        }
        #expect(streamed == parsed)
    }

    /// Rebuilds a value through the reader's container steps (scalars read whole).
    static func walk(_ reader: inout JSONStreamReader) throws(JSONParseError) -> JSONValue {
        if reader.nextIsObject {
            var object = JSONObject()
            try reader.beginObject()
            while let key = try reader.nextMemberKey() { object.append(key, try walk(&reader)) }
            return .object(object)
        }
        if reader.nextIsArray {
            var elements: [JSONValue] = []
            try reader.beginArray()
            while try reader.nextElement() { elements.append(try walk(&reader)) }
            return .array(elements)
        }
        return try reader.readValue()
    }

    /// What the compiler reported before streaming: parse the whole text, then compile the tree.
    private func treeIssues(_ bytes: [UInt8]) -> [String] {
        do {
            let document = try JSONParser(maximumDepth: 32, rejectsDuplicateMembers: false).parse(bytes)
            return compileIssues { () throws(ConfigError) in try PolicyCompiler().compile(document) }
        } catch {
            return [ConfigIssue(pointer: .root, message: JSONSlipHint.describe(error, in: bytes)).description]
        }
    }
}
