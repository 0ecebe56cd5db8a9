import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring
@testable import PolicyPatterns

/// Issue 32, exact path regions: `pathPatterns` with `*` inside or `?`, and chains that mix
/// case-sensitive and case-insensitive path conditions, used to make every claim resting on them
/// "unknown". The product of the terms' automata now cuts the path field exactly; these answers
/// are exact, and each is checked against the engine.
@Suite("Analysis path automaton", .tags(.volume))
struct AnalysisPathAutomatonTests {
    static func policy(_ handlers: [String], defaultDecision: String = "allow") throws -> CompiledPolicy {
        try PolicyAnalysisTests.config(defaultDecision, handlers)
    }

    /// Every witness decides with its handler; every unreachable handler is reached by none of
    /// the generated requests.
    static func checked(_ policy: CompiledPolicy) throws -> [PolicyAnalysis.Reachability] {
        let report = PolicyAnalysis.reachability(policy)
        for handler in report {
            if let witness = handler.witness {
                let decision = try policy.decide(witness)
                #expect(
                    decision.handler == handler.name || (decision.shadow ?? []).contains { $0.handler == handler.name },
                    "\(handler.name): \(witness.url) decides with \(decision.handler ?? "the default")")
            }
        }
        PolicyAnalysisTests.checkAgainstFuzz(policy, report)
        return report
    }

    @Test(
        "a general pattern covers a later handler: unreachable, with its cover",
        arguments: [
            (#"{"pathPatterns": ["/a/*/b"]}"#, #"{"paths": ["/a/x/b"]}"#),
            (#"{"pathPatterns": ["/x?z"]}"#, #"{"paths": ["/xyz", "/X0Z"]}"#),
            (#"{"pathPatterns": ["/*/secret/*"]}"#, #"{"pathPrefixes": ["/a/secret"]}"#),
            (#"{"pathPatterns": ["/a*b*c"]}"#, #"{"pathPatterns": ["/ab*bc", "/a/b/c"]}"#),
        ])
    func generalCover(cover: String, later: String) throws {
        let policy = try Self.policy([
            #"{"name": "general", "type": "cancel", "match": \#(cover)}"#,
            #"{"name": "later", "type": "cancel", "action": "later", "match": \#(later)}"#,
        ])
        let report = try Self.checked(policy)
        #expect(report[0].reachable == true)
        #expect(report[1].reachable == false, "\(report[1])")
        #expect(report[1].shadowedBy == ["general"])
    }

    @Test(
        "a general pattern that does not cover: reachable, with a witness the engine decides with it",
        arguments: [
            (#"{"pathPatterns": ["/a/*/b"]}"#, #"{"pathPrefixes": ["/a"]}"#),
            (#"{"pathPatterns": ["/x?z"]}"#, #"{"pathPatterns": ["/x*z"]}"#),
            (#"{"pathPatterns": ["/*/secret/*"]}"#, #"{"pathPatterns": ["/*secret*"]}"#),
            (#"{"pathPatterns": ["/a/*/b", "/a/*/c"]}"#, #"{"pathPatterns": ["/a/*/?"]}"#),
        ])
    func generalNoCover(cover: String, later: String) throws {
        let policy = try Self.policy([
            #"{"name": "general", "type": "cancel", "match": \#(cover)}"#,
            #"{"name": "later", "type": "cancel", "action": "later", "match": \#(later)}"#,
        ])
        let report = try Self.checked(policy)
        #expect(report.map(\.reachable) == [true, true], "\(report)")
        #expect(report[1].witness != nil)
    }

    @Test("mixed case: an insensitive /admin/* covers a caseSensitive /Admin; the other order does not")
    func mixedCase() throws {
        let insensitiveFirst = try Self.policy([
            #"{"name": "any-case", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}"#,
            #"{"name": "exact-case", "type": "cancel", "action": "x", "match": {"paths": ["/Admin"], "caseSensitive": true}}"#,
        ])
        let report = try Self.checked(insensitiveFirst)
        #expect(report[1].reachable == false && report[1].shadowedBy == ["any-case"], "\(report[1])")

        let sensitiveFirst = try Self.policy([
            #"{"name": "exact-case", "type": "cancel", "action": "x", "match": {"paths": ["/Admin"], "caseSensitive": true}}"#,
            #"{"name": "any-case", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}"#,
            #"{"name": "upper", "type": "cancel", "match": {"pathPatterns": ["/ADMIN/*"], "caseSensitive": true}}"#,
        ])
        let other = try Self.checked(sensitiveFirst)
        #expect(other.map(\.reachable) == [true, true, false], "\(other)")
        #expect(other[2].shadowedBy == ["any-case"])
        // `/ADMINx` is upper-case, matches `/ADMIN*`, and is not under `/admin/*`.
        let widened = try Self.policy([
            #"{"name": "any-case", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}"#,
            #"{"name": "upper", "type": "cancel", "match": {"pathPatterns": ["/ADMIN*"], "caseSensitive": true}}"#,
        ])
        let reached = try Self.checked(widened)
        #expect(reached[1].reachable == true)
        let witness = try #require(reached[1].witness)
        #expect(try widened.decide(witness).handler == "upper")
    }

    @Test("equivalent rewrites are proven equivalent; a wrong rewrite has a counterexample")
    func rewrites() throws {
        let original = try Self.policy([#"{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"]}}"#])
        let split = try Self.policy([
            #"{"name": "deep", "type": "cancel", "match": {"pathPatterns": ["/a/*/*"]}}"#,
            #"{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"]}}"#,
        ])
        let spelled = try Self.policy([
            #"{"name": "dir", "type": "cancel", "match": {"paths": ["/a"]}}"#,
            #"{"name": "under", "type": "cancel", "match": {"pathPrefixes": ["/a"]}}"#,
        ])
        let mixed = try Self.policy([
            #"{"name": "lower", "type": "cancel", "match": {"pathPrefixes": ["/a"], "caseSensitive": true}}"#,
            #"{"name": "upper", "type": "cancel", "match": {"pathPrefixes": ["/A"], "caseSensitive": true}}"#,
        ])
        for (name, other) in [("split", split), ("spelled", spelled), ("mixed case", mixed)] {
            let result = PolicyAnalysis.equivalence(original, other)
            #expect(result.equivalent == true, "\(name): \(result.unknownReasons) \(result.counterexamples)")
            try Self.fuzzEquivalent(original, other)
        }
        let narrower = try Self.policy([#"{"name": "deep", "type": "cancel", "match": {"pathPatterns": ["/a/*/*"]}}"#])
        let sensitive = try Self.policy([
            #"{"name": "a", "type": "cancel", "match": {"pathPatterns": ["/a/*"], "caseSensitive": true}}"#
        ])
        for (name, other) in [("narrower", narrower), ("case-sensitive", sensitive)] {
            let result = PolicyAnalysis.equivalence(original, other)
            #expect(result.equivalent == false, "\(name)")
            #expect(!result.counterexamples.isEmpty)
            for example in result.counterexamples {
                #expect(
                    !PolicyAnalysis.sameOutcome(
                        try original.decide(example.request), try other.decide(example.request), comparingNames: false),
                    "\(name): \(example.request.url)")
            }
        }
    }

    static func fuzzEquivalent(_ first: CompiledPolicy, _ second: CompiledPolicy, count: Int = 20_000) throws {
        let requests =
            PolicyAnalysisTests.requests(for: first, count: count / 2, seed: 11)
            + PolicyAnalysisTests.requests(for: second, count: count / 2, seed: 12)
        let differing = requests.first { request in
            !PolicyAnalysis.sameOutcome(first.decide(request), second.decide(request), comparingNames: false)
        }
        #expect(differing == nil, "equivalent, yet \(differing?.href ?? "") decides differently")
    }

    @Test("a query over a general pattern gets an exact none")
    func queryNone() throws {
        let policy = try Self.policy([
            #"{"name": "block", "type": "cancel", "match": {"pathPatterns": ["/pay/*/card*"]}}"#
        ])
        let scope = try #require(
            try? PolicyAnalysis.queryMatcher(["pathPatterns": .array([.string("/pay/*/card/*")])], at: .root).get())
        let answer = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: scope)
        #expect(answer.reachable == false, "\(answer)")
        let wider = try #require(
            try? PolicyAnalysis.queryMatcher(["pathPatterns": .array([.string("/pay/*/car?")])], at: .root).get())
        let reached = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: wider)
        #expect(reached.reachable == true, "\(reached)")
    }

    @Test("the state cap stops the exploration instead of answering from part of it")
    func stateCap() {
        let terms: [(id: Int32, nfa: PathNFA)] = (0..<20).map { index in
            (Int32(index), PathNFA(.pattern(Self.pattern("/*\(index)*x*")), ignoreCase: false))
        }
        guard case .stopped(let reason) = PathProduct.explore(terms, budget: nil, cap: 50) else {
            Issue.record("the exploration did not stop at its cap")
            return
        }
        #expect(reason.contains("cap"))
        let budget = AnalysisBudget(steps: 10)
        guard case .stopped(let why) = PathProduct.explore(terms, budget: budget) else {
            Issue.record("the exploration did not stop at its budget")
            return
        }
        #expect(why.contains("ran out of steps"))
    }

    static func pattern(_ text: String, caseSensitive: Bool = false) -> PathPattern {
        switch PathPattern.compile(text, caseSensitive: caseSensitive) {
        case .success(let pattern): return pattern
        case .failure: preconditionFailure("test pattern \(text) does not compile")
        }
    }

    @Test("pathPatterns automata accept exactly what the engine's matcher does")
    func patternAutomataAgreeWithEngine() throws {
        let patterns = ["/a/*/b", "/x?z", "/admin/*", "/*", "/a*b?c*", "/ADMIN/*", "/%2F*", "/a/*/"]
        let paths = [
            "/", "/a", "/a/b", "/a/x/b", "/a/x/y/b", "/xyz", "/xz", "/x/z", "/admin", "/admin/x", "/Admin", "/ADMIN",
            "/ADMIN/q", "/abqc", "/abc", "/a%2F", "/%2Fx", "/a/x/", "/a/%2F",
        ]
        for text in patterns {
            for caseSensitive in [false, true] {
                let pattern = Self.pattern(text, caseSensitive: caseSensitive)
                let automaton = PathNFA(.pattern(pattern), ignoreCase: !caseSensitive)
                for path in paths {
                    let matchPath = MatchPath(try URLRecord.parse("http://h.test" + path))
                    #expect(
                        automaton.matches(matchPath.text.utf8) == pattern.matches(matchPath),
                        "\(text) (caseSensitive \(caseSensitive)) on \(path)")
                }
            }
        }
    }

    @Test("URLPattern pathnames: the automaton accepts what the spec's regular expression does")
    func urlPatternPathnames() throws {
        let patterns = [
            "/a/:id", "/a/:id?", "/a/:id*", "/a/:id+", "/files/*", "/*.png", "/a{/b}?/c", "/a{-:x}+/z", "/:x/:y",
            "/b/*?", "/{:x}*", "/Admin/:x",
        ]
        let paths = [
            "/", "/a", "/a/", "/a/1", "/a/1/2", "/a/1/2/3", "/files", "/files/", "/files/x/y", "/x.png", "/d/x.png",
            "/a/b/c", "/a/c", "/a-1-2/z", "/a/z", "/a-1/z", "/x/y", "/x", "/b", "/b/", "/b/q", "/admin/q", "/Admin/q",
        ]
        for text in patterns {
            for ignoreCase in [false, true] {
                var options = PatternOptions.pathname
                options.ignoreCase = ignoreCase
                let component = try URLPatternComponent.compile(
                    text, component: "pathname", options: options, encode: { (value: String) throws(URLPatternError) in value })
                let language = try #require(PathLanguage.urlPatternPathname(component.parts), "\(text)")
                let automaton = PathNFA(language, ignoreCase: ignoreCase)
                for path in paths {
                    #expect(
                        automaton.matches(path.utf8) == (component.engineExec(path) != nil),
                        "\(text) (ignoreCase \(ignoreCase)) on \(path)")
                }
            }
        }
        let groups = try URLPatternComponent.compile(
            "/u/(\\d+)", component: "pathname", options: .pathname, encode: { (value: String) throws(URLPatternError) in value })
        var regions = PathRegions()
        #expect(regions.term(urlPatternPathname: groups.parts, ignoreCase: false) == nil)
    }

    @Test("a URLPattern pathname term cuts the path field: its atoms have witnesses that match it")
    func urlPatternTermRegions() throws {
        let component = try URLPatternComponent.compile(
            "/a/:id/edit", component: "pathname", options: .pathname,
            encode: { (value: String) throws(URLPatternError) in value })
        var regions = PathRegions()
        let term = regions.term(urlPatternPathname: component.parts, ignoreCase: false)
        let prefix = regions.term(.prefix("/a"), caseSensitive: false)
        guard let term, let prefix else {
            Issue.record("no term for /a/:id/edit or /a")
            return
        }
        regions.build(fresh: "qz0")
        #expect(regions.automatonExact)
        #expect(regions.generalTerms.isEmpty)
        let inTerm = regions.termRegions[Int(term)]
        #expect(!inTerm.isEmpty)
        for region in inTerm {
            let path = try #require(regions.witnesses[Int(region)])
            #expect(component.engineExec(path) != nil, "\(path)")
            #expect(regions.termRegions[Int(prefix)].contains(region))
        }
        // `/a` alone, `/a/x` and paths outside `/a` are atoms too.
        #expect(regions.termRegions[Int(prefix)].count >= 2)
    }
}
