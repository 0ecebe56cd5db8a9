import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Found while writing the differential harness (issue 40; its corpus holds the case): two chains that decide every single reading
/// alike, the same handlers in another order, were proven "equivalent" although the request
/// `/a%2Fb`, read as `/a%2Fb` and as `/a/b`, cancels with whichever handler comes first in
/// each chain (``ReadingTieBreak``).
@Suite("Analysis: readings that both cancel break the tie alike")
struct ReadingTieBreakTests {
    static let slash = #"{"name": "x", "type": "cancel", "action": "x1", "match": {"paths": ["/a/b"]}}"#
    static let encoded = #"{"name": "y", "type": "logout", "match": {"paths": ["/a%2Fb"]}}"#

    static func chain(_ handlers: String...) throws -> CompiledPolicy {
        try compile(#"{"defaultDecision": "allow", "handlers": ["# + handlers.joined(separator: ",") + "]}")
    }

    @Test("swapped handlers whose regions do not meet, but one request's readings do, are not proven equivalent")
    func swappedAcrossReadings() throws {
        let one = try Self.chain(Self.slash, Self.encoded)
        let other = try Self.chain(Self.encoded, Self.slash)
        // The engine: each reading alone decides alike; the request with both decides apart.
        for url in ["https://h.example/a/b", "https://h.example/a/b/"] {
            #expect(try decide(one, url).action == decide(other, url).action, "\(url)")
        }
        #expect(try decide(one, "https://h.example/a%2Fb").action == "x1")
        #expect(try decide(other, "https://h.example/a%2Fb").action == "logout")
        for comparingNames in [false, true] {
            let answer = PolicyAnalysis.equivalence(one, other, comparingNames: comparingNames)
            #expect(answer.equivalent != true, "\(answer.unknownReasons)")
            if answer.equivalent == nil {
                #expect(answer.unknownReasons.contains { $0.contains("first in the chain") }, "\(answer.unknownReasons)")
            }
        }
    }

    @Test("swapped handlers with one outcome still are (the tie breaks alike)")
    func swappedWithOneOutcome() throws {
        let first = #"{"name": "x", "type": "cancel", "match": {"paths": ["/a/b"]}}"#
        let second = #"{"name": "y", "type": "cancel", "match": {"paths": ["/a%2Fb"]}}"#
        let answer = PolicyAnalysis.equivalence(try Self.chain(first, second), try Self.chain(second, first))
        #expect(answer.equivalent == true, "\(answer.unknownReasons)")
    }

    @Test("a handler that decides no request breaks no tie: changing it keeps the proof (no urlPatterns)")
    func unreachableHandlersBreakNoTie() throws {
        // `late` is shadowed by `x` in both chains; between `x` and `y` it would interleave their
        // outcomes' spans, so before the reachability pass the answer was unknown.
        let lateA = #"{"name": "late", "type": "cancel", "action": "x1", "match": {"paths": ["/a/b"]}}"#
        let lateB = #"{"name": "late", "type": "about", "match": {"paths": ["/a/b"]}}"#
        let one = try Self.chain(Self.slash, Self.encoded, lateA)
        let other = try Self.chain(Self.slash, Self.encoded, lateB)
        let answer = PolicyAnalysis.equivalence(one, other)
        #expect(answer.equivalent == true, "\(answer.unknownReasons)")
    }
}
