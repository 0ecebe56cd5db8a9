import Foundation
import JSONSupport
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

@Suite("App glue: web-view answers and share intake requests")
struct AppGlueTests {
    let client = NavigationPolicyClient(configuration: .init(shippedBundle: .init(bytes: bundleBytes())))

    @Test func decisionsMapToTheWebViewsAnswer() {
        func answer(_ url: String) -> NavigationAnswer { NavigationAnswer(client.decide(NavigationRequest(url: url))) }
        #expect(answer("https://app.example.com/home") == .allow)
        #expect(answer("https://app.example.com/logout") == .cancel(.logout))
        #expect(answer("https://app.example.com/about") == .cancel(.showAbout))
        #expect(
            answer("https://pay.example.com/pay?id=1")
                == .cancel(
                    .openExternally(url: "https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fpay%3Fid%3D1"))
        )
        #expect(answer("https://exa mple.com/") == .cancel(.none))
    }

    @Test func blockCustomActionsAndUnsafeExternalTargets() {
        func decision(_ action: String?, location: String? = nil) -> Decision {
            Decision(verdict: .cancel, handler: "h", action: action, location: location, url: "https://a.example/")
        }
        #expect(NavigationAnswer(decision("block")) == .cancel(.none))
        #expect(NavigationAnswer(decision(nil)) == .cancel(.none))
        #expect(
            NavigationAnswer(decision("open-support", location: "app://s"))
                == .cancel(.custom(action: "open-support", location: "app://s")))
        #expect(NavigationAnswer(decision("open-external")) == .cancel(.openExternally(url: "https://a.example/")))
        #expect(NavigationAnswer(decision("open-external", location: "itms-apps://x")) == .cancel(.none))
        #expect(NavigationAnswer(decision("open-external", location: "javascript:alert(1)")) == .cancel(.none))
    }

    @Test func aShareIsTheIntakesExtensionItemsFormat() throws {
        let share = try ShareIntakeRequest(
            urls: ["https://news.example/a"], title: "A story", text: "Look", idempotencyKey: IdempotencyKey("key-1"))
        let body = try JSONParser().parse(share.body)
        #expect(
            body
                == .object([
                    "extensionItems": .array([
                        .object([
                            "attributedTitle": .string("A story"), "attributedContentText": .string("Look"),
                            "attachments": .array([
                                .object([
                                    "registeredTypeIdentifiers": .array([.string("public.url")]),
                                    "items": .object(["public.url": .string("https://news.example/a")]),
                                ])
                            ]),
                        ])
                    ])
                ]))
        let request = share.urlRequest(daemon: try #require(URL(string: "https://policy.example")), intakeToken: "t0k")
        #expect(request.url?.absoluteString == "https://policy.example/v1/intake")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Idempotency-Key") == "key-1")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t0k")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func retriesOfTheSameShareSendTheSameKeyAndBytes() throws {
        let share = try ShareIntakeRequest(urls: ["https://news.example/a"])
        let daemon = try #require(URL(string: "http://127.0.0.1:8080"))
        let first = share.urlRequest(daemon: daemon)
        let retry = share.urlRequest(daemon: daemon)
        #expect(first.value(forHTTPHeaderField: "Idempotency-Key") == retry.value(forHTTPHeaderField: "Idempotency-Key"))
        #expect(first.httpBody == retry.httpBody)
        // A new share gets a new key.
        let other = try ShareIntakeRequest(urls: ["https://news.example/a"])
        #expect(other.idempotencyKey != share.idempotencyKey)
        // The key survives being stored as text and read back.
        #expect(try IdempotencyKey(share.idempotencyKey.value) == share.idempotencyKey)
    }

    @Test func badSharesAndKeysAreRefused() {
        #expect(throws: ShareIntakeRequestError.self) { try ShareIntakeRequest(urls: []) }
        #expect(throws: ShareIntakeRequestError.self) {
            try ShareIntakeRequest(urls: Array(repeating: "https://a.example/", count: 17))
        }
        #expect(throws: ShareIntakeRequestError.self) { try IdempotencyKey("") }
        #expect(throws: ShareIntakeRequestError.self) { try IdempotencyKey("has space") }
        #expect(throws: ShareIntakeRequestError.self) { try IdempotencyKey(String(repeating: "k", count: 256)) }
    }

    @Test func onlyA200Or201AcknowledgesAShare() {
        #expect(ShareIntakeRequest.delivery(forStatus: 201) == .delivered)
        #expect(ShareIntakeRequest.delivery(forStatus: 200) == .delivered)
        #expect(ShareIntakeRequest.delivery(forStatus: nil) == .retryLater)
        #expect(ShareIntakeRequest.delivery(forStatus: 503) == .retryLater)
        #expect(ShareIntakeRequest.delivery(forStatus: 409) == .retryLater)
        #expect(ShareIntakeRequest.delivery(forStatus: 303) == .retryLater)
        #expect(ShareIntakeRequest.delivery(forStatus: 422) == .refused(status: 422))
        #expect(ShareIntakeRequest.delivery(forStatus: 401) == .refused(status: 401))
    }
}
