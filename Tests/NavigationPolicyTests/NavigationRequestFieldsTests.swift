import JSONSupport
import PolicyHarness
import TestSelection
import Testing

@testable import NavigationPolicy

/// The request's members read as text (`NavigationRequest(url:methodText:…)`, what the
/// WebAssembly module's `decide` reads without JSON) against the same members in a JSON body
/// (`NavigationRequest(json:)`): the same request, or the same error, for every input.
@Suite("NavigationRequest from its members' text: the JSON reader's twin", .tags(.volume))
struct NavigationRequestFieldsTests {
    static let keys = ["url", "method", "navigationType", "targetFrame", "sourceURL"]

    /// Pieces the generated members are made of: valid and invalid spellings, case variants,
    /// escapes' targets (controls, NUL, quotes, non-ASCII, astral), URLs the parser refuses.
    static let pieces = [
        "https://a.example/x", "HTTPS://A.EXAMPLE/%6Cogout", "javascript:alert(1)", "http://[::1]/", "not a url",
        "https://b\u{00FC}cher.example/", "https://a.example/\u{0000}", "/relative", "GET", "post", "G ET", "\u{00E9}",
        "linkActivated", "LINKACTIVATED", "other", "reload", "formSubmitted", "backForward", "bogus", "main", "sub",
        "MAIN", "subframe", "", " ", "\"", "\\", "\u{0001}\u{001F}", "\u{1F600}", "\u{FEFF}", "\t\n", "?", "#", "%",
    ]

    /// A member's value: absent, JSON null, or text made of 1–3 pieces.
    static func member(_ random: inout HarnessRandom) -> String?? {
        switch random.below(10) {
        case 0: return .none
        case 1: return .some(nil)
        default:
            return (0..<(1 + random.below(3))).map { _ in random.pick(pieces) }.joined()
        }
    }

    /// `text` as a JSON string, some characters written as `\u` escapes (surrogate pairs
    /// beyond the BMP) so the parser's unescaping is part of what is compared.
    static func jsonString(_ text: String, _ random: inout HarnessRandom) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar == "\"" || scalar == "\\" || random.chance(15) {
                if scalar.value > 0xFFFF {
                    let value = scalar.value - 0x10000
                    out += escape(0xD800 + (value >> 10)) + escape(0xDC00 + (value & 0x3FF))
                } else {
                    out += escape(scalar.value)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func escape(_ unit: UInt32) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    static func viaJSON(_ members: [String??], _ random: inout HarnessRandom) -> Result<NavigationRequest, NavigationRequestError>
    {
        var parts: [String] = []
        for (key, value) in zip(keys, members) {
            guard case .some(let text) = value else { continue }
            parts.append("\"\(key)\":" + (text.map { jsonString($0, &random) } ?? "null"))
        }
        guard case .object(let object)? = try? JSONParser().parse(Array(("{" + parts.joined(separator: ",") + "}").utf8))
        else {
            Issue.record("the generated body does not parse")
            return .failure(NavigationRequestError(field: "", reason: ""))
        }
        return Result(catching: { () throws(NavigationRequestError) -> NavigationRequest in try NavigationRequest(json: object) })
    }

    static func viaFields(_ members: [String??]) -> Result<NavigationRequest, NavigationRequestError> {
        let text = members.map { $0 ?? nil }
        return Result(catching: { () throws(NavigationRequestError) -> NavigationRequest in
            try NavigationRequest(
                url: text[0], methodText: text[1], navigationTypeText: text[2], targetFrameText: text[3], sourceURL: text[4])
        })
    }

    @Test("generated members: equal requests or equal errors")
    func generated() {
        var random = HarnessRandom(state: 43)
        var failures = 0
        var errors = 0
        for _ in 0..<TestVolume.count(full: 200_000, sample: 20_000) {
            let members = Self.keys.map { _ in Self.member(&random) }
            let json = Self.viaJSON(members, &random)
            let fields = Self.viaFields(members)
            if case .failure = json { errors += 1 }
            if json != fields, failures < 5 {
                failures += 1
                Issue.record("\(members): JSON \(json), fields \(fields)")
            }
        }
        // Both outcomes were generated often.
        #expect(errors > 1000)
    }

    @Test("edge cases: each member's defaults, spellings and errors")
    func edges() {
        let cases: [[String??]] = [
            [.none, .none, .none, .none, .none],
            [.some(nil), "POST", .none, .none, .none],
            ["", .none, .none, .none, .none],
            ["https://a.example/", .some(nil), .some(nil), .some(nil), .some(nil)],
            ["https://a.example/", "", "", "", ""],
            ["https://a.example/", "delete", "formResubmitted", "sub", "https://s.example/"],
            ["https://a.example/", .none, "Reload", .none, .none],
            ["https://a.example/", .none, .none, "top", .none],
            ["https://a.example/", .none, "bogus", "bogus", .none],
        ]
        var random = HarnessRandom(state: 1)
        for members in cases {
            #expect(Self.viaJSON(members, &random) == Self.viaFields(members), "\(members)")
        }
    }

    @Test("the shared reader's defaults and errors")
    func reader() throws {
        let request = try NavigationRequest(
            url: "https://a.example/", methodText: nil, navigationTypeText: nil, targetFrameText: nil, sourceURL: nil)
        #expect(request == NavigationRequest(url: "https://a.example/"))
        #expect(
            Self.viaFields([.none, "GET", .none, .none, .none])
                == .failure(NavigationRequestError(field: "url", reason: "required field is missing")))
        guard case .failure(let error) = Self.viaFields(["https://a.example/", .none, "bogus", .none, .none]) else {
            Issue.record("an unknown navigationType was read")
            return
        }
        #expect(error.field == "navigationType")
        guard case .failure(let frame) = Self.viaFields(["https://a.example/", .none, .none, "top", .none]) else {
            Issue.record("an unknown targetFrame was read")
            return
        }
        #expect(frame.field == "targetFrame")
        let full = try NavigationRequest(
            url: "u", methodText: "post", navigationTypeText: "reload", targetFrameText: "sub", sourceURL: "s")
        #expect(
            full
                == NavigationRequest(url: "u", method: "post", navigationType: .reload, targetFrame: .sub, sourceURL: "s"))
    }
}
