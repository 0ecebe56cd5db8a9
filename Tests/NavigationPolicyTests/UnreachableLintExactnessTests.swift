import NavigationPolicy
import PolicyAuthoring
import TestSelection
import Testing

/// The unreachable-handler lint warns only when it is true (issue 28, item 10): `validate
/// --strict` fails CI on a warning, so a handler the lint calls unreachable must never decide
/// anything. Checked against the engine itself: for every pair of path conditions drawn from
/// small alphabets, every sample path the later handler would decide on its own must be
/// decided by the earlier one when the lint says "can never decide".
@Suite("Unreachable lint: exact", .tags(.volume))
struct UnreachableLintExactnessTests {
    /// Path conditions as `match` JSON: prefixes, literal-then-star patterns (the compared
    /// shape), and patterns with `?` and inner `*` (never claimed to cover).
    static let conditions: [String] = {
        var list: [String] = []
        for prefix in ["/", "/a", "/a/b", "/ab", "/b"] { list.append(#"{"pathPrefixes": ["\#(prefix)"]}"#) }
        for pattern in [
            "/*", "/a/*", "/a*", "/a/b*", "/ab*", "/a/?", "/a/?*", "/a/*b", "/*a*", "/a/b/*", "/b*", "/a?", "/?/*",
        ] {
            list.append(#"{"pathPatterns": ["\#(pattern)"]}"#)
        }
        list.append(#"{"paths": ["/a", "/a/b"]}"#)
        return list
    }()

    /// Every path over `/`, `a`, `b` up to five characters after the leading slash.
    static let samples: [String] = {
        var paths = ["/"]
        var frontier = [""]
        for _ in 0..<5 {
            frontier = frontier.flatMap { stem in ["/", "a", "b"].map { stem + $0 } }
            paths += frontier.map { "/" + $0 }
        }
        return paths
    }()

    @Test("every 'can never decide' holds on every sample path; the cases issue 28 named are exact")
    func warningsAreTrue() throws {
        var proven = 0
        for outer in Self.conditions {
            for inner in Self.conditions {
                let policy = try compile(
                    #"{"handlers": [{"name": "outer", "type": "cancel", "match": \#(outer)}, "#
                        + #"{"name": "inner", "type": "about", "match": \#(inner)}]}"#)
                let unreachable = PolicyLint.warnings(policy).contains { $0.kind == "unreachable" }
                guard unreachable else { continue }
                proven += 1
                for path in Self.samples {
                    let decision = try decide(policy, "https://h.example" + path)
                    #expect(decision.handler != "inner", "\(outer) before \(inner): lint says unreachable, \(path) reaches it")
                }
            }
        }
        #expect(proven > 20, "the check still proves the common covers (\(proven))")
        // Nothing is reported as a guess any more.
        let kinds = try Self.conditions.flatMap { outer in
            try Self.conditions.flatMap { inner in
                PolicyLint.warnings(
                    try compile(
                        #"{"handlers": [{"name": "o", "type": "cancel", "match": \#(outer)}, "#
                            + #"{"name": "i", "type": "about", "match": \#(inner)}]}"#)
                ).map(\.kind)
            }
        }
        #expect(!kinds.contains("mayBeUnreachable"))
    }

    @Test("/admin/* covers pathPrefixes /admin (it matches /admin itself); /admin/?* does not")
    func adminShapes() throws {
        func warned(_ outer: String) throws -> Bool {
            let policy = try compile(
                #"{"handlers": [{"name": "o", "type": "cancel", "match": {"pathPatterns": ["\#(outer)"]}}, "#
                    + #"{"name": "i", "type": "about", "match": {"pathPrefixes": ["/admin"]}}]}"#)
            return PolicyLint.warnings(policy).contains { $0.kind == "unreachable" }
        }
        #expect(try warned("/admin/*"))
        #expect(try warned("/adm*"))
        #expect(try !warned("/admin/?*"))
        #expect(try !warned("/admin/*.html"))
        #expect(try !warned("/admin/x*"))
    }
}
