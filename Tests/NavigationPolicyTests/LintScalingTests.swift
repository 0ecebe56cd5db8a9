import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The unreachable-handler lint on long chains: near-linear, and the same warnings as
/// comparing each handler with every earlier one.
@Suite("Authoring: lint on long chains", .tags(.volume))
struct LintScalingTests {
    /// The shapes `bench/generate-rules.py` writes: distinct exact hosts, wildcards, exact
    /// routes and route prefixes, none covering another.
    static func generatedChain(_ count: Int) -> String {
        (0..<count).map { index -> String in
            let match: String
            switch index % 4 {
            case 0: match = #"{"hosts": ["partner\#(index).example"]}"#
            case 1: match = #"{"hosts": ["*.blocked\#(index).example"]}"#
            case 2: match = #"{"paths": ["/route\#(index)"], "navigationTypes": ["linkActivated", "other"]}"#
            default: match = #"{"pathPrefixes": ["/section\#(index)"]}"#
            }
            return #"{"name": "h\#(index)", "type": "about", "match": \#(match)}"#
        }.joined(separator: ",")
    }

    @Test("a chain of distinct hosts and paths costs about one comparison per handler, not one per pair")
    func nearLinear() throws {
        let count = 2000
        let policy = try compile(#"{"handlers": [\#(Self.generatedChain(count))]}"#)
        var comparisons = 0
        let warnings = PolicyLint.warnings(policy, coverComparisons: &comparisons)
        #expect(warnings.isEmpty)
        // A scan of every earlier handler makes count * (count - 1) / 2 ≈ 2,000,000 comparisons.
        #expect(comparisons <= count, "comparisons: \(comparisons)")
    }

    /// Handlers whose conditions overlap in every way the candidate filter reasons about:
    /// parent domains, wildcards, exact paths under prefixes, case folding, patterns, shadows.
    static let overlapping: [String] = [
        #"{"hosts": ["a.example"]}"#, #"{"hosts": ["*.example"]}"#, #"{"hosts": ["*.b.example"]}"#,
        #"{"hosts": ["x.b.example", "a.example"]}"#, #"{"hosts": ["B.example"], "paths": ["/Admin"]}"#,
        #"{"paths": ["/admin"]}"#, #"{"paths": ["/Admin"], "caseSensitive": true}"#,
        #"{"pathPrefixes": ["/admin"]}"#, #"{"pathPrefixes": ["/Admin/Users"], "caseSensitive": true}"#,
        #"{"paths": ["/admin/users", "/admin"]}"#, #"{"pathPatterns": ["/admin/*"]}"#,
        #"{"pathPatterns": ["/ad*"]}"#, #"{"pathPrefixes": ["/"]}"#, #"{"methods": ["GET"]}"#,
        #"{"schemes": ["https"], "hosts": ["*.example"]}"#, #"{"hosts": ["c.b.example"], "pathPrefixes": ["/admin"]}"#,
        #"{"navigationTypes": ["other"], "paths": ["/admin/users"]}"#, #"{}"#,
    ]

    @Test("the warnings are those of comparing with every earlier handler, for every pair of overlapping shapes")
    func sameAsFullScan() throws {
        // Every ordered triple of shapes, some as shadows: each later handler meets each earlier shape.
        var handlers: [String] = []
        for (first, outer) in Self.overlapping.enumerated() {
            for (second, inner) in Self.overlapping.enumerated() {
                let mode = (first + second) % 5 == 0 ? #", "mode": "shadow""# : ""
                handlers.append(#"{"name": "o\#(first)-\#(second)", "type": "about", "match": \#(outer)\#(mode)}"#)
                handlers.append(#"{"name": "i\#(first)-\#(second)", "type": "cancel", "match": \#(inner)}"#)
            }
        }
        let policy = try compile(#"{"handlers": [\#(handlers.joined(separator: ","))]}"#)
        var comparisons = 0
        let found = PolicyLint.warnings(policy, coverComparisons: &comparisons).filter {
            $0.kind == "unreachable" || $0.kind == "mayBeUnreachable"
        }
        var expected: [String] = []
        for (position, link) in policy.links.enumerated() {
            for earlier in policy.links[..<position] where !earlier.isShadow {
                let covers = Superset.covers(earlier.matcher, link.matcher)
                guard covers != .no else { continue }
                expected.append("\(position) \(earlier.name) \(covers == .yes)")
                break
            }
        }
        let actual = found.map { warning -> String in
            let position = warning.pointer.description.split(separator: "/").last.map(String.init) ?? ""
            let earlier = warning.message.split(separator: "\"").dropFirst(3).first.map(String.init) ?? ""
            return "\(position) \(earlier) \(warning.kind == "unreachable")"
        }
        #expect(expected.count > 100)
        #expect(actual == expected)
    }
}
