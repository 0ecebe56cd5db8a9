import JSONSupport
import Testing

@testable import NavigationPolicy

/// JSON member names and the request's spelled values are compared byte for byte (``UTF8Bytes``),
/// as JSON compares names, never by canonical equivalence: `String`'s `==` and hash normalize
/// a name first, which a long run of combining marks of two classes makes quadratic (outside
/// attack 14, R1 and R3: 2.8 s for one 64 KiB member name of a `POST /v1/decide` body), and
/// which took a name only equivalent to a known one (KELVIN SIGN for `K`) as that name.
@Suite("Names compared byte for byte")
struct ByteExactNamesTests {
    /// 60,000 bytes of U+0301 and U+0316 alternating: canonical ordering must reorder them all.
    static let marks = String(repeating: "\u{0301}\u{0316}", count: 15_000)

    @Test("names that are only canonically equivalent are two members, not a duplicate")
    func equivalentNamesAreDistinct() throws {
        let object = try JSONParser().parse(#"{"\u00e9": 1, "e\u0301": 2}"#)
        guard case .object(let members) = object else { Issue.record("not an object"); return }
        #expect(members.members.count == 2)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(#"{"a": 1, "\u0061": 2}"#) }
    }

    @Test("a request's hostile member name or value is refused, its echo bounded")
    func hostileRequestNames() throws {
        for members in [
            [("url", JSONValue.string("https://a.example/")), ("k" + Self.marks, .number(1))],
            [("url", .string("https://a.example/")), ("navigationType", .string("l" + Self.marks))],
            [("url", .string("https://a.example/")), ("targetFrame", .string("m" + Self.marks))],
        ] {
            var object = JSONObject()
            for (key, value) in members { object.append(key, value) }
            do {
                _ = try NavigationRequest(json: object)
                Issue.record("accepted")
            } catch {
                #expect(error.field.utf8.count < 400 && error.reason.utf8.count < 1_000)
            }
        }
        #expect(HTTPMethod.normalized("G" + Self.marks) == nil)
    }

    @Test("a hostile config key is unknown, and a repeat of it a duplicate, cheaply")
    func configKeys() {
        let equivalent = configIssues(#"{"handlers": [], "defaultDecision": "allow", "handl\u0065rs": []}"#)
        #expect(equivalent.contains { $0.contains("duplicate key") }, "an escaped spelling is the same bytes: \(equivalent)")
        let hostile = configIssues(#"{"handlers": [], "k\#(Self.marks)": 1, "k\#(Self.marks)": 2}"#)
        #expect(hostile.contains { $0.contains("duplicate key") } && hostile.contains { $0.contains("unknown field") })
    }
}
