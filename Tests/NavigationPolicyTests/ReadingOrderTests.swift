import JSONSupport
import Testing

@testable import NavigationPolicy

/// Issue 38, item 8: when two readings of a URL (match form and decoded separators, match
/// form and the URLPattern standard's) both cancel with different handlers, the handler
/// reported is the first in chain order, as one reading's walk reports it, in every engine:
/// the scan, the index, the chain automaton, explain and a compiled image.
@Suite("Readings that both cancel")
struct ReadingOrderTests {
    /// Handlers that never match the requests below: enough of them turn the index on.
    static let padding = (0..<6).map {
        #"{"name": "pad\#($0)", "type": "cancel", "match": {"hosts": ["pad\#($0).example"]}}"#
    }

    /// `first` then `second` (then padding when `indexed`), default allow.
    static func chain(_ first: String, _ second: String, indexed: Bool) -> String {
        let handlers = [first, second] + (indexed ? padding : [])
        return #"{"defaultDecision": "allow", "handlers": ["# + handlers.joined(separator: ",") + "]}"
    }

    /// Every engine's answer for `url` under `json`.
    static func answers(_ json: String, _ url: String) throws -> [(String, Decision)] {
        let policy = try PolicyCompiler().compile(Array(json.utf8))
        let image = try loadImage(try compileImage(json, threshold: 1))
        let request = try CanonicalRequest(NavigationRequest(url: url))
        return [
            ("chain", policy.decide(request)), ("linear", policy.decideLinearAllReadings(request)),
            ("explain", policy.decide(request, explain: true)), ("image", image.decide(request)),
        ]
    }

    static let payment =
        #"{"name": "pay", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]}, "location": "https://checkout.example/?u={url}"}"#
    static let block = #"{"name": "block-x", "type": "cancel", "match": {"pathPrefixes": ["/x"]}}"#

    @Test(
        "encoded separators: the earlier handler is reported, whichever reading found it",
        arguments: [false, true])
    func encodedSeparators(indexed: Bool) throws {
        // Match form `/x/..%2Fpay/cb` (block-x), decoded-separator form `/pay/cb` (pay).
        let url = "https://h.example/x/..%2Fpay/cb"
        for (engine, decision) in try Self.answers(Self.chain(Self.payment, Self.block, indexed: indexed), url) {
            #expect(decision.handler == "pay", "\(engine), indexed \(indexed)")
            #expect(decision.verdict == .cancel)
            #expect(decision.location?.hasPrefix("https://checkout.example/") == true, "\(engine)")
        }
        // The other order: the match form's handler comes first and is reported.
        for (engine, decision) in try Self.answers(Self.chain(Self.block, Self.payment, indexed: indexed), url) {
            #expect(decision.handler == "block-x", "\(engine), indexed \(indexed)")
        }
    }

    @Test(
        "the URLPattern standard's reading: the earlier handler is reported",
        arguments: [false, true])
    func standardReading(indexed: Bool) throws {
        // The standard keeps `;q` in the path; the match form drops it (`/pay`).
        let standardOnly =
            #"{"name": "pay", "type": "payment-redirect", "match": {"urlPatterns": [{"pathname": "/pay;q"}]}, "location": "https://checkout.example/?u={url}"}"#
        let plainOnly = #"{"name": "block-pay", "type": "cancel", "match": {"pathPrefixes": ["/pay"]}}"#
        let url = "https://h.example/pay;q"
        for (engine, decision) in try Self.answers(Self.chain(standardOnly, plainOnly, indexed: indexed), url) {
            #expect(decision.handler == "pay", "\(engine), indexed \(indexed)")
        }
        for (engine, decision) in try Self.answers(Self.chain(plainOnly, standardOnly, indexed: indexed), url) {
            #expect(decision.handler == "block-pay", "\(engine), indexed \(indexed)")
        }
    }

    @Test("explain says which reading's handler came first")
    func explainSaysWhy() throws {
        let json = Self.chain(Self.payment, Self.block, indexed: false)
        let policy = try PolicyCompiler().compile(Array(json.utf8))
        let decision = policy.decide(
            try CanonicalRequest(NavigationRequest(url: "https://h.example/x/..%2Fpay/cb")), explain: true)
        #expect(decision.pathReading?.contains("both cancel; the decoded-separator reading's handler comes first") == true)
    }
}
