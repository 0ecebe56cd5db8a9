import JSONSupport
import NavigationPolicy
import Testing

@testable import PolicyService

/// The in-place body reading must accept only what the strict parser accepts, with the same meaning.
@Suite("/v1/decide body read in place")
struct DecideBodyTests {
    private func read(_ body: String) -> DecideBody? {
        Array(body.utf8).withUnsafeBufferPointer { DecideBody.read($0) }
    }

    private struct NotAnObject: Error {}

    /// What the full reading (JSON tree, then `NavigationRequest(json:)`) makes of `body`.
    private func fullReading(_ body: String) throws -> (NavigationRequest, Bool) {
        guard case .object(let object) = try JSONParser(maximumDepth: 8).parse(body) else {
            throw NotAnObject()
        }
        var explain = false
        if case .bool(let flag)? = object["explain"] { explain = flag }
        return (try NavigationRequest(json: object, extraKeys: ["explain"]), explain)
    }

    @Test(
        "a usual body reads as the JSON tree reads it",
        arguments: [
            #"{"url":"https://app.example.com/home","method":"GET","navigationType":"linkActivated","targetFrame":"main"}"#,
            #"{"url":"https://a.example/"}"#,
            " \n{ \"url\" :\t\"https://a.example/x?y=1\" , \"explain\" : true }\r\n",
            #"{"explain":false,"sourceURL":"https://s.example/","url":"https://a.example/"}"#,
            #"{"url":"https://a.example/","sourceURL":null,"method":null,"navigationType":null,"targetFrame":null}"#,
            #"{"url":"","method":"post","targetFrame":"sub"}"#,
            #"{"url":"https://a.example/","method":"POST","navigationType":"formSubmitted"}"#,
            #"{"url":"https://a.example/","method":"HEAD","navigationType":"backForward"}"#,
            #"{"url":"https://a.example/","method":"PUT","navigationType":"reload"}"#,
            #"{"url":"https://a.example/","method":"GETX","navigationType":"formResubmitted"}"#,
            #"{"url":"https://a.example/","method":"Get","navigationType":"other","targetFrame":"main"}"#,
        ])
    func agreesWithTree(body: String) throws {
        let fast = try #require(read(body))
        let (navigation, explain) = try fullReading(body)
        #expect(fast.navigation == navigation)
        #expect(fast.explain == explain)
    }

    @Test(
        "anything else is left to the strict parser",
        arguments: [
            "", "{}", "[1]", "{", #"{"url":"https://a.example/""#, #"{"url":"https://a.example/"} x"#,
            #"{"url":"https://a.example/",}"#, #"{"url":"a\/b"}"#, #"{"u\u0072l":"https://a.example/"}"#,
            #"{"url":"https://a.example/","url":"https://b.example/"}"#, #"{"url":"https://a.example/","nope":1}"#,
            #"{"requests":[{"url":"https://a.example/"}]}"#, #"{"url":1}"#, #"{"url":null}"#, #"{"url":true}"#,
            #"{"url":"https://a.example/","explain":"yes"}"#, #"{"url":"https://a.example/","explain":null}"#,
            #"{"url":"https://a.example/","navigationType":"teleport"}"#,
            #"{"url":"https://a.example/","targetFrame":"side"}"#, #"{"url":"https://a.example/","method":false}"#,
            #"{"url":"https://a.example/","navigationType":"linkactivated"}"#,
            #"{"url":"https://a.example/","navigationType":"formSubmitteD"}"#,
            #"{"url":"https://a.example/","navigationType":"Other"}"#, #"{"url":"https://a.example/","targetFrame":"mainx"}"#,
            #"{"url":"https://a.example/","targetFrame":"su"}"#, #"{"url":"https://a.example/","navigationType":1}"#,
            #"{"url":"https://a.example/","targetFrame":false}"#,
            #"{"url":"https://ä.example/"}"#, "{\"url\":\"a\u{1}\"}", #"{"url":"https://a.example/","explain":tru}"#,
            #"{"url":"https://a.example/","explain":truex}"#,
        ])
    func fallsBack(body: String) {
        #expect(read(body) == nil, "\(body)")
    }

    @Test("POST answers are those of the full reading, errors included")
    func postAnswers() async throws {
        let harness = try ServiceHarness()
        let json = [("Content-Type", "application/json")]
        let fast = await harness.send("POST", "/v1/decide", headers: json, body: #"{"url":"https://a.example/logout"}"#)
        #expect(fast.status == 200)
        #expect(fast.object["handler"]?.stringValue == "logout")
        #expect(fast.headers["Cache-Control"] == "no-store")
        let explained = await harness.send(
            "POST", "/v1/decide", headers: json, body: #"{"url":"https://a.example/logout","explain":true}"#)
        #expect(explained.object["trace"] != nil)
        let badType = await harness.send(
            "POST", "/v1/decide", headers: json, body: #"{"url":"https://a.example/","navigationType":"teleport"}"#)
        #expect(badType.status == 400)
        #expect(badType.object["field"]?.stringValue == "navigationType")
    }
}

@Suite("Content-Type check of POST bodies")
struct ContentTypeCheckTests {
    @Test(
        "application/json in any case, with parameters and SP/HTAB around it; nothing else",
        arguments: [
            ("application/json", true), (" Application/JSON ; charset=utf-8", true), ("application/json\t", true),
            ("application/json;", true), ("text/plain", false), ("application/jsonx", false), ("", false),
            ("applicatio/json", false), ("application/json-patch+json", false), ("application /json", false),
        ])
    func mediaTypes(contentType: String, accepted: Bool) {
        #expect(DecideEndpoints.isJSON(contentType) == accepted)
    }

    @Test("no Content-Type is not JSON")
    func missing() {
        #expect(!DecideEndpoints.isJSON(nil))
    }
}
