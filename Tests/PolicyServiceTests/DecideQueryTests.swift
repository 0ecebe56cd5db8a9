import HTTPServer
import JSONSupport
import Testing

@testable import PolicyService

/// The in-place query reading must agree with the item-by-item one it replaces on the hot path.
@Suite("/v1/decide query read in place")
struct DecideQueryTests {
    /// Runs the scan over `query`'s bytes.
    private func scan(_ query: String) -> DecideQuery.Scan {
        Array(query.utf8).withUnsafeBufferPointer { DecideQuery.scan($0) }
    }

    @Test(
        "each value decodes exactly as HTTPRequest.queryItems decodes it",
        arguments: [
            "url=https%3A%2F%2Fapp.example.com%2Fhome",
            "url=a+b%20c&method=POST",
            "url=%zz%4&explain=true",
            "url=%&targetFrame=main",
            "url=100%25&sourceURL=https%3A%2F%2Fs.example%2F",
            "url=%FF%FEbad-utf8",
            "url=%E2%82%AC&navigationType=linkActivated",
            "&&url=x&&method=&",
            "url",
            "url=a=b=c",
            "url=%41%4a%4A%6a",
            "url=https://app.example.com/a/long/path/without/escapes+then%20a%2Fmix%zzof%4runs%",
            "url=%2F%2F%2F",
            "",
        ])
    func decodesLikeQueryItems(query: String) throws {
        let items = HTTPRequest(method: "GET", rawTarget: "/v1/decide?" + query).queryItems
        guard case .parsed(let found) = scan(query) else {
            Issue.record("expected \(query) to be read in place")
            return
        }
        let bytes = Array(query.utf8)
        let spans: [(String, DecideQuery.Span?)] = [
            ("url", found.url), ("method", found.method), ("navigationType", found.navigationType),
            ("targetFrame", found.targetFrame), ("sourceURL", found.sourceURL), ("explain", found.explain),
        ]
        for (name, span) in spans {
            let decoded = span.map { span in bytes.withUnsafeBufferPointer { DecideQuery.decode(span, in: $0) } }
            #expect(decoded == items.first { $0.name == name }?.value, "\(name) in \(query)")
        }
    }

    @Test(
        "unknown, repeated or escaped names take the full reading",
        arguments: ["url=a&bogus=1", "url=a&url=b", "u%72l=a", "url=a&=b", "URL=a", "url=a&explain=true&explain=false"])
    func unusualQueriesFallBack(query: String) {
        guard case .needsFullParse = scan(query) else {
            Issue.record("expected \(query) to need the full reading")
            return
        }
    }

    @Test("explain compares the raw value, and an escaped spelling still decodes")
    func explainValues() async throws {
        let harness = try ServiceHarness()
        for (query, traced) in [("explain=true", true), ("explain=false", false), ("explain=tru%65", true)] {
            let response = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example%2F&" + query)
            #expect(response.status == 200, "\(query)")
            #expect((response.object["trace"] != nil) == traced, "\(query)")
        }
        let escapedName = await harness.send("GET", "/v1/decide?u%72l=https%3A%2F%2Fa.example%2Flogout")
        #expect(escapedName.object["handler"]?.stringValue == "logout")
    }

    @Test("errors read in place are worded as the full reading words them")
    func sameErrors() async throws {
        let harness = try ServiceHarness()
        let explain = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example%2F&explain=y+s")
        #expect(explain.object["detail"]?.stringValue == #"explain must be true or false, not "y s""#)
        let missing = await harness.send("GET", "/v1/decide?method=GET")
        #expect(
            missing.object["detail"]?.stringValue
                == "the url query parameter is required, e.g. /v1/decide?url=https%3A%2F%2Fapp.example.com%2F")
        let unknown = await harness.send("GET", "/v1/decide?url=https://a.example/?x=1&y=2")
        #expect(unknown.object["detail"]?.stringValue?.hasSuffix(DecideEndpoints.encodingHint) == true)
        #expect(unknown.object["field"]?.stringValue == "y")
    }

    @Test("a body written into the thread's buffer stays intact while the next one is written")
    func reusedBufferNeverSharesAMutation() async throws {
        let harness = try ServiceHarness()
        let first = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example%2Flogout")
        let firstText = first.text
        let second = await harness.send("GET", "/v1/decide?url=https%3A%2F%2Fa.example%2F")
        #expect(first.text == firstText)
        #expect(first.object["handler"]?.stringValue == "logout")
        #expect(second.object["decision"]?.stringValue == "allow")
        #expect(first.object["decisionId"] != second.object["decisionId"])
    }

    @Test("decisionId written on the stack equals its text form")
    func decisionIdWrittenInPlace() {
        let id = DecisionID(prefix: 0x00ab_cdef, sequence: 0x1234_5678_9abc)
        var writer = JSONWriter()
        id.writeMember(to: &writer)
        #expect(writer.string == #","decisionId":"00abcdef-123456789abc""#)
        #expect(id.text == "00abcdef-123456789abc")
    }
}
