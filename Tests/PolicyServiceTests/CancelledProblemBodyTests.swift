import HTTPServer
import NavigationPolicy
import TestSelection
import Testing

@testable import PolicyService

@Suite("the proxy's prebuilt 403 navigation-cancelled body", .tags(.sanitizerRelevant))
struct CancelledProblemBodyTests {
    private static let decisions = [
        Decision(verdict: .cancel, handler: "logout", action: "logout", location: nil, url: "http://origin/logout"),
        Decision(verdict: .cancel, handler: nil, action: "block", location: nil, url: "https://a.example/x?q=\"1\""),
        Decision(
            verdict: .cancel, handler: "pay-ü", action: "redirect", location: "https://pay.example/",
            url: "https://shop.example/\u{7F}"),
        Decision(
            verdict: .cancel, handler: "shadowed", action: "block", location: nil, url: "http://h/",
            shadow: [ShadowResult(handler: "s", verdict: .allow, action: nil, location: nil)]),
    ]

    @Test("byte for byte what the general problem renderer writes, for each kind of decision")
    func sameBytesAsRenderer() throws {
        for decision in Self.decisions {
            let fast = try #require(CancelledProblemBody.bytes(for: decision))
            let general = ProblemRenderer().cancelled(decision)
            #expect(fast == general.bodyBytes, "\(String(decoding: fast, as: UTF8.self))")
        }
    }

    @Test("the same bytes again when the thread's buffer is reused (no leftovers of a longer body)")
    func reusedBufferHoldsOnlyTheNewBody() throws {
        let long = Decision(
            verdict: .cancel, handler: "logout", action: "logout", location: nil,
            url: "http://origin/" + String(repeating: "x", count: 600))
        let short = Decision(verdict: .cancel, handler: nil, action: "block", location: nil, url: "http://o/")
        let first = try #require(CancelledProblemBody.bytes(for: long))
        let second = try #require(CancelledProblemBody.bytes(for: short))
        #expect(first == ProblemRenderer().cancelled(long).bodyBytes)
        #expect(second == ProblemRenderer().cancelled(short).bodyBytes)
    }

    @Test("a handler name that needs escaping in the detail text is left to the general renderer")
    func escapedHandlerNamesFallBack() {
        for handler in ["a\"b", "back\\slash", "tab\there", "nl\n"] {
            let decision = Decision(verdict: .cancel, handler: handler, action: "block", location: nil, url: "http://h/")
            #expect(CancelledProblemBody.bytes(for: decision) == nil, "\(handler)")
        }
    }
}
