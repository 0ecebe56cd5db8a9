import JSONSupport
import NavigationPolicy
import Testing

/// The writer scans strings eight bytes at a time; these pin its output to the escaping rule
/// applied one character at a time, wherever in the string an escaped byte falls.
@Suite("JSON writer escaping")
struct JSONWriterTests {
    /// The escaped form of `text` computed the slow, obvious way.
    private static func expectedQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func written(_ text: String) -> String {
        var writer = JSONWriter()
        writer.writeString(text)
        return writer.string
    }

    @Test("every ASCII byte, and a non-ASCII character, at every offset of strings up to 19 bytes")
    func everyByteAtEveryOffset() {
        let specials: [Unicode.Scalar] =
            (0..<0x80).compactMap { Unicode.Scalar(UInt8($0)) } + ["é", "\u{80}", "\u{FF}", "😀"]
        var mismatches: [String] = []
        for length in 1...19 {
            for offset in 0..<length {
                for special in specials {
                    var text = String(repeating: "a", count: offset)
                    text.unicodeScalars.append(special)
                    text += String(repeating: "b", count: length - offset - 1)
                    if Self.written(text) != Self.expectedQuoted(text) { mismatches.append(text) }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("several escapes in one eight-byte word, and long strings")
    func severalEscapes() {
        let texts = [
            "\"\"\"\"\"\"\"\"\"", "a\\b\\c\\d\\e\\f", "\u{7F}\u{1F}\u{20}\u{21}\u{22}\u{5B}\u{5C}\u{5D}x",
            String(repeating: "https://app.example.com/home?q=\"x\"", count: 3), "",
        ]
        for text in texts {
            #expect(Self.written(text) == Self.expectedQuoted(text))
        }
    }

    @Test("raw fragments and joined strings are copied as given")
    func rawAndJoined() {
        var writer = JSONWriter()
        writer.writeRaw(#"{"a":"#)
        writer.writeString(joining: "https://a.example", "/p\"q")
        writer.writeRaw(String(repeating: "1", count: 40))
        writer.writeRaw("}")
        #expect(writer.string == #"{"a":"https://a.example/p\"q""# + String(repeating: "1", count: 40) + "}")
    }
}

/// Literals take the `StaticString` path; a one-character literal may be stored as a scalar
/// rather than as bytes, and both must come out as the same UTF-8.
@Suite("JSON writer literals")
struct JSONWriterLiteralTests {
    @Test("literals of every form and String fragments give their UTF-8 bytes")
    func literalsAndFragments() {
        var writer = JSONWriter()
        writer.writeRaw("{")
        writer.writeRaw(#""a":"#)
        writer.writeRaw("é")
        writer.writeRaw("\u{20AC}")
        let fragment = String(repeating: "x", count: 20)
        writer.writeRaw(fragment)
        writer.writeRaw(#"""#)
        writer.writeStringContents("q\"\n")
        writer.writeRaw("}")
        #expect(writer.string == #"{"a":é\#u{20AC}"# + fragment + #""q\"\n}"#)
    }
}

/// The hot path writes a decision member by member; the tree form is the reference.
@Suite("Decision members written in place")
struct DecisionMembersTests {
    @Test(
        "writeMembers gives the bytes of the decision's JSON object",
        arguments: [
            Decision(verdict: .allow, handler: nil, action: nil, location: nil, url: "https://app.example.com/home"),
            Decision(verdict: .allow, handler: "app", action: nil, location: nil, url: "https://app.example.com/home"),
            Decision(verdict: .cancel, handler: nil, action: "block", location: nil, url: "https://a.example/\"q"),
            Decision(verdict: .cancel, handler: "h\\", action: nil, location: "https://b.example/", url: "https://a.example/"),
            Decision(verdict: .cancel, handler: "h", action: nil, location: nil, url: "https://a.example/\u{7F}"),
            Decision(
                verdict: .cancel, handler: "sso\"", action: "logout", location: "https://a.example/\u{1}",
                url: "https://x.example/é"),
            Decision(
                verdict: .allow, handler: "h", action: nil, location: nil, url: "https://a.example/",
                shadow: [ShadowResult(handler: "s", verdict: .cancel, action: "block", location: nil)]),
        ])
    func membersMatchTree(decision: Decision) {
        var writer = JSONWriter()
        writer.writeRaw("{")
        decision.writeMembers(to: &writer)
        writer.writeRaw("}")
        #expect(writer.string == JSONValue.object(decision.jsonObject).serialized)
        var opened = JSONWriter()
        decision.writeOpenObject(to: &opened)
        opened.writeRaw("}")
        #expect(opened.string == JSONValue.object(decision.jsonObject).serialized)
    }
}
