import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 32's cost targets, held by step counts instead of timings (a test never asserts a
/// time): the chains of `bench/analysis.sh` (exact hosts, `*.` wildcards, routes with
/// navigation types, route prefixes) answered within a step bound that the search before
/// these changes exceeded many times over (it grew with the square of the chain), and
/// answered exactly: every handler reached by a witness the engine confirms, every planted
/// cover found, every counterexample deciding differently.
@Suite("Policy analysis at scale", .tags(.volume))
struct PolicyAnalysisScaleTests {
    /// `bench/generate-rules.py`'s chain shape: the default policy's three handlers, then
    /// `count` handlers cycling through exact host, wildcard host, route, route prefix.
    static func generated(_ count: Int) -> [String] {
        var handlers = [
            #"{"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}}"#,
            #"{"name": "about", "type": "about", "match": {"paths": ["/about"]}}"#,
            #"{"name": "payment", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}, "location": "https://checkout.example.com/open?target={url}"}"#,
        ]
        for index in 0..<count {
            let (type, match) =
                switch index % 4 {
                case 0: ("allow", #"{"hosts": ["partner\#(index).example"]}"#)
                case 1: ("cancel", #"{"hosts": ["*.blocked\#(index).example"]}"#)
                case 2: ("about", #"{"paths": ["/route\#(index)"], "navigationTypes": ["linkActivated", "other"]}"#)
                default: ("cancel", #"{"pathPrefixes": ["/section\#(index)"]}"#)
                }
            handlers.append(#"{"name": "h\#(index)", "type": "\#(type)", "match": \#(match)}"#)
        }
        return handlers
    }

    static func policy(_ handlers: [String]) throws -> CompiledPolicy {
        try compile(#"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ","))]}"#)
    }

    /// Two handlers that cover a third only together (neither alone does).
    static let jointCover = [
        #"{"name": "get", "type": "cancel", "match": {"methods": ["GET"], "hosts": ["*.example.com"]}}"#,
        #"{"name": "other", "type": "allow", "match": {"methods": ["POST", "PUT"], "hosts": ["*.example.com"]}}"#,
        #"{"name": "late", "type": "cancel", "match": {"methods": ["GET", "POST"], "hosts": ["api.example.com"]}}"#,
    ]

    @Test("reachability of 2,000 handlers in 1,000,000 steps: every handler reached, the joint cover found")
    func reachabilityIsNearLinear() throws {
        // Before: a handler without hosts took every earlier host handler as a candidate and
        // split on each of their hosts, about n²/2 = 2,000,000 search steps for this chain alone.
        // The budget counts all of a run's work (regions, candidates, re-decisions: see
        // AnalysisBudget), about 500 steps a handler here.
        let handlers = Self.generated(2_000) + Self.jointCover
        let policy = try Self.policy(handlers)
        let report = PolicyAnalysis.reachability(policy, limits: PolicyAnalysis.Limits(steps: 1_000_000))
        #expect(!report.contains { $0.reachable == nil }, "\(report.compactMap(\.unknownReason).prefix(3))")
        let late = try #require(report.last)
        #expect(late.reachable == false)
        #expect(Set(late.shadowedBy) == ["get", "other"])
        for handler in report.dropLast() {
            let witness = try #require(handler.witness, "\(handler.name)")
            #expect(try policy.decide(witness).handler == handler.name, "\(handler.name): \(witness.url)")
        }
    }

    /// The bench's compared chain: two adjacent handlers in the middle swapped (a route and a
    /// route prefix, which share no request) and the action of a late handler changed.
    static func mutated(_ handlers: [String]) -> [String] {
        var result = handlers
        let middle = result.count / 2
        result.swapAt(middle, middle + 1)
        return result
    }

    static let tail = [
        #"{"name": "all-blocked", "type": "cancel", "match": {"hosts": ["*.example"], "methods": ["POST"]}}"#,
        #"{"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}}"#,
        #"{"name": "puts", "type": "allow", "match": {"methods": ["PUT", "DELETE"]}}"#,
    ]

    @Test("two 1,000-handler chains compared in 1,000,000 steps: the swap is equivalent, the changed action is not")
    func equivalenceSkipsWhatDecidesAlike() throws {
        // Before: every host class was split on every path class (about 250,000 sub-boxes per
        // chain pair, each costing its candidates), far beyond this bound.
        let base = Self.generated(1_000) + Self.tail
        let first = try Self.policy(base)
        let limits = PolicyAnalysis.Limits(steps: 1_000_000)

        let itself = PolicyAnalysis.equivalence(first, first, limits: limits)
        #expect(itself.equivalent == true, "\(itself.unknownReasons)")

        let swapped = try Self.policy(Self.mutated(base))
        let reordered = PolicyAnalysis.equivalence(first, swapped, limits: limits)
        // Unknown since issue 40 when the swapped handlers cancel with different outcomes (ReadingTieBreak).
        #expect(
            reordered.equivalent == true || reordered.unknownReasons.contains { $0.contains("first in the chain") },
            "\(reordered.unknownReasons)")

        var changedList = Self.mutated(base)
        changedList[changedList.count - 3] = changedList[changedList.count - 3].replacing(
            #""type": "cancel""#, with: #""type": "cancel", "action": "changed""#)
        let changed = try Self.policy(changedList)
        let result = PolicyAnalysis.equivalence(first, changed, limits: limits)
        #expect(result.equivalent == false, "\(result.unknownReasons)")
        #expect(result.unknownReasons.isEmpty, "\(result.unknownReasons)")
        #expect(!result.counterexamples.isEmpty)
        for example in result.counterexamples {
            let one = try first.decide(example.request)
            let other = try changed.decide(example.request)
            #expect(one.handler == "all-blocked" && other.handler == "all-blocked", "\(example.request.url)")
            #expect(one.action != other.action)
        }
    }

    @Test("a reorder of handlers that share requests is not skipped: the counterexample is in their overlap")
    func overlappingSwapIsCompared() throws {
        let base =
            Self.generated(200) + [
                #"{"name": "x", "type": "cancel", "match": {"pathPrefixes": ["/shared"]}}"#,
                #"{"name": "y", "type": "allow", "match": {"paths": ["/shared/page"]}}"#,
            ] + Self.tail
        var swapped = base
        let position = base.count - 5
        swapped.swapAt(position, position + 1)
        let first = try Self.policy(base)
        let second = try Self.policy(swapped)
        let result = PolicyAnalysis.equivalence(first, second, limits: PolicyAnalysis.Limits(steps: 1_000_000))
        #expect(result.equivalent == false, "\(result.unknownReasons)")
        let example = try #require(result.counterexamples.first)
        #expect(example.request.url.contains("/shared/page"), "\(example.request.url)")
        #expect(try first.decide(example.request).handler == "x")
        #expect(try second.decide(example.request).handler == "y")
    }
}
