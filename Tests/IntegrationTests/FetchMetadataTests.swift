import HTTPServer
import NavigationPolicy
import PolicyService
import Testing

@Suite("Fetch Metadata is read strictly")
struct FetchMetadataTests {
    private func metadata(_ fields: [(String, String)]) -> FetchMetadata {
        FetchMetadata(HTTPHeaders(fields))
    }

    @Test("only one field with an exact subresource mode is not a navigation")
    func subresourceModes() {
        for mode in ["cors", "no-cors", "same-origin", "websocket"] {
            #expect(!metadata([("Sec-Fetch-Mode", mode)]).isNavigation, "\(mode)")
        }
        let navigations: [[(String, String)]] = [
            [], [("Sec-Fetch-Mode", "navigate")], [("Sec-Fetch-Mode", "")], [("Sec-Fetch-Mode", "garbage")],
            [("Sec-Fetch-Mode", "CORS")], [("Sec-Fetch-Mode", " cors")], [("Sec-Fetch-Mode", "cors, navigate")],
            [("Sec-Fetch-Mode", "cors"), ("Sec-Fetch-Mode", "navigate")],
            [("Sec-Fetch-Mode", "cors"), ("sec-fetch-mode", "cors")],
            [("Sec-Fetch-Mode", "nested-navigate")],
        ]
        for fields in navigations {
            #expect(metadata(fields).isNavigation, "\(fields)")
        }
    }

    @Test("destination sets targetFrame only when it is one exact value")
    func destinations() {
        func frame(_ fields: [(String, String)]) -> TargetFrame {
            var navigation = NavigationRequest(url: "https://a.example/", method: "GET")
            metadata(fields).apply(to: &navigation)
            return navigation.targetFrame
        }
        #expect(frame([("Sec-Fetch-Dest", "iframe")]) == .sub)
        #expect(frame([("Sec-Fetch-Dest", "document")]) == .main)
        #expect(frame([("Sec-Fetch-Dest", "IFRAME")]) == .main)
        #expect(frame([("Sec-Fetch-Dest", "iframe"), ("Sec-Fetch-Dest", "document")]) == .main)
        #expect(frame([("Sec-Fetch-Dest", "iframe, document")]) == .main)
    }

    @Test("navigate marks a link activation, or a form submission for POST")
    func navigationType() {
        var navigation = NavigationRequest(url: "https://a.example/", method: "POST")
        metadata([("Sec-Fetch-Mode", "navigate")]).apply(to: &navigation)
        #expect(navigation.navigationType == .formSubmitted)
        var garbage = NavigationRequest(url: "https://a.example/", method: "GET")
        let before = garbage.navigationType
        metadata([("Sec-Fetch-Mode", "Navigate")]).apply(to: &garbage)
        #expect(garbage.navigationType == before)
    }
}
