import Testing

@testable import ShareIntake

@Suite("NSExtensionItem-like JSON")
struct ExtensionItemsTests {
    func parse(_ json: String) throws(IntakeFailure) -> SharedPayload {
        try PayloadParser().parse(contentType: "application/json", body: Array(json.utf8))
    }

    func kind(_ json: String) -> IntakeFailure.Kind? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error.kind
        }
    }

    func attachment(_ types: [String], _ items: String) -> String {
        #"{"registeredTypeIdentifiers":[\#(types.map { "\"\($0)\"" }.joined(separator: ","))],"items":\#(items)}"#
    }

    @Test("precedence: public.url, conforming types, JS result, plain text, content text, title")
    func precedence() throws {
        let url = attachment(["public.url"], #"{"public.url":"https://url.example/"}"#)
        let text = attachment(["public.plain-text"], #"{"public.plain-text":"see https://text.example/"}"#)
        let plist = attachment(
            ["com.apple.property-list"],
            #"{"com.apple.property-list":{"NSExtensionJavaScriptPreprocessingResultsKey":{"url":"https://js.example/","title":"JS"}}}"#
        )
        func item(_ attachments: [String], extra: String = "") -> String {
            #"{"extensionItems":[{\#(extra)"attachments":[\#(attachments.joined(separator: ","))]}]}"#
        }
        #expect(try parse(item([text, plist, url])).urls == ["https://url.example/"])
        let jsFirst = try parse(item([text, plist], extra: #""attributedTitle":"AT","#))
        #expect(jsFirst.urls == ["https://js.example/"])
        #expect(jsFirst.title == "JS")
        #expect(
            try parse(item([text], extra: #""attributedContentText":"https://c.example/","#)).urls == ["https://text.example/"])
        let fromContent = try parse(
            item([], extra: #""attributedTitle":"https://t.example/","attributedContentText":"via https://c.example/","#))
        #expect(fromContent.urls == ["https://c.example/"])
        #expect(try parse(item([], extra: #""attributedTitle":"https://t.example/","#)).urls == ["https://t.example/"])
        let named = try parse(
            item([attachment(["public.url", "public.url-name"], #"{"public.url":"https://u/","public.url-name":"Name"}"#)]))
        #expect(named.title == "Name")
        #expect(named.format == .extensionItems)
    }

    @Test("file URLs conform to public.url but are no web URLs")
    func fileURL() throws {
        let payload = try parse(
            #"{"extensionItems":[{"attachments":[\#(attachment(["public.file-url"], #"{"public.file-url":"file:///var/x"}"#))]}]}"#
        )
        #expect(payload.urls == ["file:///var/x"])
        #expect(throws: IntakeFailure.self) { try WebURL(validating: payload.urls[0]) }
    }

    @Test("items keys must be registered and values must have their type's shape")
    func typeIdentifiers() {
        #expect(
            kind(#"{"extensionItems":[{"attachments":[\#(attachment(["public.url"], #"{"public.text":"https://a/"}"#))]}]}"#)
                == .typeIdentifierMismatch)
        #expect(
            kind(#"{"extensionItems":[{"attachments":[\#(attachment(["public.url"], #"{"public.url":5}"#))]}]}"#)
                == .typeIdentifierMismatch)
        #expect(
            kind(
                #"{"extensionItems":[{"attachments":[\#(attachment(["com.apple.property-list"], #"{"com.apple.property-list":"x"}"#))]}]}"#
            ) == .typeIdentifierMismatch)
        #expect(kind(#"{"extensionItems":[{"attachments":[{"items":{}}]}]}"#) == .malformedBody)
        #expect(kind(#"{"extensionItems":[{"attachments":[]}]}"#) == .noURLFound)
        #expect(kind(#"{"extensionItems":[]}"#) == .noURLFound)
        #expect(kind(#"{"extensionItems":{}}"#) == .malformedBody)
    }

    @Test("limits: 16 items, 16 attachments, userInfo 8 KiB (stored, not used)")
    func limits() throws {
        let url = attachment(["public.url"], #"{"public.url":"https://a.example/"}"#)
        let one = #"{"attachments":[\#(url)]}"#
        #expect(kind(#"{"extensionItems":[\#(Array(repeating: one, count: 17).joined(separator: ","))]}"#) == .payloadTooLarge)
        #expect(
            kind(#"{"extensionItems":[{"attachments":[\#(Array(repeating: url, count: 17).joined(separator: ","))]}]}"#)
                == .payloadTooLarge)
        let sixteen = try parse(
            #"{"extensionItems":[{"attachments":[\#(Array(repeating: url, count: 16).joined(separator: ","))]}]}"#)
        #expect(sixteen.urls.count == 1)
        let bigInfo =
            #"{"extensionItems":[{"userInfo":{"k":"\#(String(repeating: "x", count: 8_200))"},"attachments":[\#(url)]}]}"#
        #expect(kind(bigInfo) == .payloadTooLarge)
        let stored = try parse(#"{"extensionItems":[{"userInfo":{"url":"https://ignored.example/"},"attachments":[\#(url)]}]}"#)
        #expect(stored.urls == ["https://a.example/"])
        #expect(stored.userInfo == .array([.object(["url": .string("https://ignored.example/")])]))
        let two = try parse(#"{"extensionItems":[\#(one),\#(one)]}"#)
        #expect(two.urls.count == 2)
    }
}
