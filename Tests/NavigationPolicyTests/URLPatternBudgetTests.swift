import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// Issue 31, the outside attack: the regexp work of one decision is bounded, by a config-time
/// cap on a regexp group's program and a per-decision step budget that fails closed. Every
/// assertion is on the step counter or the outcome, never on time.
@Suite("URLPattern regexp budget")
struct URLPatternBudgetTests {
    /// The attack's pattern, exactly as it was sent.
    static let attack = #"{"pathname": "/((?:a?){5000}b)"}"#
    /// Accepted by the cap (129 states) but dear on a long path (each of the 30 `.*` loops is a
    /// live thread at every index: 179,487 steps on 1,000 `a`s): the budget decides.
    static let dear = #"{"pathname": "/((?:.*a){30}b)"}"#
    static let dearPath = "/((?:.*a){30}b)"

    func policy(_ pattern: String, type: String) throws -> CompiledPolicy {
        try compile(
            #"{"defaultDecision": "cancel", "handlers": [{"name": "p", "type": "\#(type)", "match": {"urlPatterns": [\#(pattern)]}}]}"#
        )
    }

    @Test("the attack's pattern is refused at its pointer, naming the cap")
    func attackRefused() {
        let issues = configIssues(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [\#(Self.attack)]}}]}"#)
        #expect(issues.count == 1)
        let issue = issues.first ?? ""
        #expect(issue.hasPrefix("/handlers/0/match/urlPatterns/0/pathname: "), "\(issue)")
        #expect(issue.contains("10009 matcher states, over the cap of 250"), "\(issue)")
        // A whole-URL string has no member to point at: the entry's pointer.
        let string = configIssues(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": ["https://a.example/((?:a?){5000}b)"]}}]}"#
        )
        #expect(string.first?.hasPrefix("/handlers/0/match/urlPatterns/0: ") == true, "\(string)")
    }

    @Test("the cap is on components the engine matches: regexp groups, and many wildcards; not the port or fast-path text")
    func capScope() throws {
        let cap = URLPatternStepBudget.maxRegexpComponentStates
        // Under the cap: accepted.
        _ = try policy(Self.dear, type: "cancel")
        let states = try URLPattern(.dictionary(URLPatternInit(pathname: Self.dearPath))).components[5].regex.stateCount
        #expect(states <= cap, "\(states)")
        // Just over it (each `a?` is 2 states): refused.
        let over = configIssues(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [{"search": "((?:a?){130})"}]}}]}"#)
        #expect(over.first?.contains("the search pattern's regexp group") == true, "\(over)")
        // Without regexp groups, a pattern of a few wildcards and groups is accepted; but every
        // `*` and `:name` is a capture carried along each step, so many of them are capped too
        // (outside attack 8: 3,000 `*a` made one 50,000-step budget cost a second).
        let usual = "/" + (0..<8).map { "s\($0)/:p\($0)" }.joined(separator: "/") + "/*"
        _ = try policy(#"{"pathname": "\#(usual)"}"#, type: "cancel")
        let wildcards = "/" + String(repeating: "*a", count: 300)
        let refused = configIssues(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [{"pathname": "\#(wildcards)"}]}}]}"#)
        #expect(refused.first?.hasPrefix("/handlers/0/match/urlPatterns/0/pathname: ") == true, "\(refused)")
        #expect(refused.first?.contains("wildcards and groups compile to") == true, "\(refused)")
        // Long fixed text with a trailing `*` takes the fast path: no engine, not capped.
        _ = try policy(#"{"pathname": "/\#(String(repeating: "x", count: 600))/*"}"#, type: "cancel")
        // The port's input is at most 5 digits.
        _ = try policy(#"{"port": "((?:[0-9]?){200})"}"#, type: "cancel")
    }

    @Test("the attack's pattern, built outside a policy, is stopped at the budget on the attack's 1,000-byte path")
    func attackWithinBudget() throws {
        let pattern = try URLPattern(.dictionary(URLPatternInit(pathname: "/((?:a?){5000}b)")))
        let request = try CanonicalRequest(
            NavigationRequest(url: "https://a.example/" + String(repeating: "a", count: 1_000))
        ).withFreshRegexBudget()
        let budget = try #require(request.regexBudget)
        guard case .undecided = pattern.matchOutcome(request, budget: budget) else {
            Issue.record("expected the run to stop at the budget")
            return
        }
        #expect(budget.exhausted)
        #expect(budget.remaining == 0)
        // Unbounded, the same run takes 13.5 million steps (270 × the budget).
        let component = pattern.components[5]
        let unbounded = component.regex.execCountingSteps("/" + String(repeating: "a", count: 1_000)).steps
        #expect(unbounded > 200 * URLPatternStepBudget.stepsPerDecision, "\(unbounded)")
    }

    @Test("over the budget a decision fails closed: a cancelling handler matches, an allow-list does not")
    func failClosed() throws {
        let long = "https://a.example/" + String(repeating: "a", count: 1_000)
        let short = "https://a.example/" + String(repeating: "a", count: 30) + "b"
        // Within budget both decide on the pattern itself.
        #expect(try decide(try policy(Self.dear, type: "allow"), short).verdict == .allow)
        #expect(try decide(try policy(Self.dear, type: "cancel"), "https://a.example/x").handler == nil)
        // The long path costs more than the budget: the cancel reading wins either way.
        let allowDecision = try decide(try policy(Self.dear, type: "allow"), long)
        #expect(allowDecision.verdict == .cancel)
        #expect(allowDecision.handler == nil, "the allow-list entry is read as not matched")
        let cancelDecision = try decide(try policy(Self.dear, type: "cancel"), long)
        #expect(cancelDecision.verdict == .cancel)
        #expect(cancelDecision.handler == "p", "the cancelling entry is read as matched")
        // And the work done is the budget, not the 179,487 steps the run would take.
        let pattern = try URLPattern(.dictionary(URLPatternInit(pathname: Self.dearPath)))
        let full = pattern.components[5].regex.execCountingSteps("/" + String(repeating: "a", count: 1_000)).steps
        #expect(full > 3 * URLPatternStepBudget.stepsPerDecision, "\(full)")
    }

    @Test("the budget is one per decision, shared by its entries, handlers and readings")
    func sharedBudget() throws {
        // Each allow entry alone is within budget on this path; together they are not.
        let path = "/" + String(repeating: "a", count: 40)
        let single = try URLPattern(.dictionary(URLPatternInit(pathname: Self.dearPath)))
        let one = single.components[5].regex.execCountingSteps(path).steps
        #expect(one < URLPatternStepBudget.stepsPerDecision)
        let count = URLPatternStepBudget.stepsPerDecision / one + 1
        let entries = (0..<count).map { _ in Self.dear }.joined(separator: ",")
        let allow = try compile(
            #"{"defaultDecision": "cancel", "handlers": [{"name": "p", "type": "allow", "match": {"urlPatterns": [\#(entries)]}}]}"#
        )
        let request = try CanonicalRequest(NavigationRequest(url: "https://a.example" + path)).withFreshRegexBudget()
        let matcher = allow.links[0].matcher
        #expect(!matcher.matches(request))
        #expect(request.regexBudget?.exhausted == true)
        #expect(try decide(allow, "https://a.example" + path).verdict == .cancel)
        // A definite match after the budget ran out still counts (a fast-path entry costs no steps).
        let rescued = try compile(
            #"{"handlers": [{"name": "p", "type": "allow", "match": {"urlPatterns": [\#(entries), {"pathname": "/*"}]}}], "defaultDecision": "cancel"}"#
        )
        #expect(try decide(rescued, "https://a.example" + path).verdict == .allow)
    }

    @Test("a chain whose patterns need no regex engine spends no steps (1,000 entries on one host)")
    func fastPathsSpendNothing() throws {
        let entries = (0..<1_000).map { #"{"hostname": "a.example", "pathname": "/*", "search": "q=\#($0)"}"# }
        let chain = try compile(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [\#(entries.joined(separator: ","))]}}]}"#)
        let request = try CanonicalRequest(NavigationRequest(url: "https://a.example/x?q=999")).withFreshRegexBudget()
        #expect(chain.links[0].matcher.matches(request))
        #expect(request.regexBudget?.remaining == URLPatternStepBudget.stepsPerDecision)
        #expect(try decide(chain, "https://a.example/x?q=1000").handler == nil)
        #expect(try decide(chain, "https://a.example/x?q=999").handler == "p")
    }
}
