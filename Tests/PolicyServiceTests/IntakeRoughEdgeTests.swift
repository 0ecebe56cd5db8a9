import Foundation
import HTTPServer
import JSONSupport
import Testing

@testable import PolicyService

/// Intake and decide errors that name exactly what to fix.
@Suite("intake and decide error details in-process")
struct IntakeRoughEdgeTests {
    static let json = [("Content-Type", "application/json")]

    static func attachment(_ items: String, types: String = #"["public.url"]"#) -> String {
        #"{"extensionItems":[{"attachments":[{"registeredTypeIdentifiers":\#(types),"items":\#(items)}]}]}"#
    }

    @Test(
        "unknown or misspelled members are 400 malformed-body at their pointer, nothing stored",
        arguments: [
            (#"{"url":"https://a.example/","titel":"x"}"#, "/titel", "did you mean \"title\"?"),
            (#"{"url":"https://a.example/","zzzzzzzz":1}"#, "/zzzzzzzz", #"expected "url", "title", "text", "tags""#),
            (#"{"url":"https://a.example/","a/b~c":1}"#, "/a~1b~0c", "unknown member \"a/b~c\""),
            (
                #"{"extensionItems":[{"attributedTitle":"t","attachments":[]}],"title":"x"}"#, "/title",
                #"expected "extensionItems", "tags""#
            ),
            (
                #"{"extensionItems":[{"attachements":[{"registeredTypeIdentifiers":["public.url"],"items":{"public.url":"https://a.example/"}}]}]}"#,
                "/extensionItems/0/attachements", "did you mean \"attachments\"?"
            ),
            (
                #"{"extensionItems":[{"attachments":[{"registeredTypeIdentifier":["public.url"],"items":{}}]}]}"#,
                "/extensionItems/0/attachments/0/registeredTypeIdentifier", "did you mean \"registeredTypeIdentifiers\"?"
            ),
        ])
    func unknownMembers(body: String, pointer: String, detail: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("POST", "/v1/intake", headers: Self.json, body: body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.problemKind == "malformed-body")
        #expect(response.object["pointer"]?.stringValue == pointer)
        #expect(response.object["detail"]?.stringValue?.contains(detail) == true, "\(response.text)")
        #expect(await harness.send("GET", "/v1/intake").object["items"]?.arrayValue?.isEmpty == true)
    }

    @Test("extension items may carry keys a serializer adds (they mirror NSExtensionItem)")
    func extensionItemExtras() async throws {
        let harness = try ServiceHarness()
        let body =
            #"{"extensionItems":[{"contentType":"x","attachments":[{"suggestedName":"n","registeredTypeIdentifiers":["public.url"],"items":{"public.url":"https://a.example/"}}]}]}"#
        #expect(await harness.send("POST", "/v1/intake", headers: Self.json, body: body).status == 201)
    }

    @Test(
        "type mismatches point at the offending value itself",
        arguments: [
            (attachment(#"{"public.url":5}"#), "/extensionItems/0/attachments/0/items/public.url"),
            (
                attachment(#"{"com.apple.property-list":{"url":5}}"#, types: #"["com.apple.property-list"]"#),
                "/extensionItems/0/attachments/0/items/com.apple.property-list/url"
            ),
            (
                attachment(
                    #"{"com.apple.property-list":{"NSExtensionJavaScriptPreprocessingResultsKey":{"title":5,"url":"https://a.example/"}}}"#,
                    types: #"["com.apple.property-list"]"#),
                "/extensionItems/0/attachments/0/items/com.apple.property-list/NSExtensionJavaScriptPreprocessingResultsKey/title"
            ),
            (attachment(#"{"a/b":"x"}"#, types: #"["public.url"]"#), "/extensionItems/0/attachments/0/items/a~1b"),
        ])
    func exactPointers(body: String, pointer: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("POST", "/v1/intake", headers: Self.json, body: body)
        #expect(response.status == 400 || response.status == 422, "\(response.text)")
        #expect(response.object["pointer"]?.stringValue == pointer, "\(response.text)")
    }

    @Test("too-many-urls names intake.maxWebURLs and its value")
    func tooManyURLs() async throws {
        let harness = try ServiceHarness()
        let response = await harness.send(
            "POST", "/v1/intake", headers: [("Content-Type", "text/uri-list")],
            body: "https://a.example/1\r\nhttps://a.example/2\r\n")
        #expect(response.status == 422)
        #expect(response.problemKind == "too-many-urls")
        #expect(response.object["detail"]?.stringValue?.contains("intake.maxWebURLs is 1") == true, "\(response.text)")
        #expect(response.object["setting"]?.stringValue == "intake.maxWebURLs")
        #expect(response.object["max"]?.integerValue == 1)
    }

    @Test("a bad listing query is an intake error, not a navigation one", arguments: ["limit=0", "after=x", "page=2"])
    func listingQueryTitle(query: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/v1/intake?" + query)
        #expect(response.status == 400)
        #expect(response.problemKind == "invalid-request")
        #expect(response.object["title"]?.stringValue == "Invalid intake request")
    }

    @Test("an unencoded & in url= gets a detail that says how to encode it")
    func unencodedAmpersand() async throws {
        let harness = try ServiceHarness()
        for target in ["/v1/decide?url=https://a.example/?x=1&y=2", "/v1/decide?url=https://a.example/?q=a&b"] {
            let response = await harness.send("GET", target)
            #expect(response.status == 400)
            let detail = response.object["detail"]?.stringValue ?? ""
            #expect(detail.contains("percent-encode the url value (& as %26"), "\(detail)")
            #expect(detail.contains("curl -G --data-urlencode"))
        }
        // Without a url the hint would mislead: it is not given.
        let plain = await harness.send("GET", "/v1/decide?nope=1")
        #expect(plain.object["detail"]?.stringValue?.contains("percent-encode") == false)
    }
}
