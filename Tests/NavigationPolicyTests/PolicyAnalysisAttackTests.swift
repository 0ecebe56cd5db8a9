import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Outside attack 7 on the analysis (issue 32): a compiled image's table-held lists (F1), the
/// decoded-separator reading of a query's scope (F2) and one step budget per run (F4).
@Suite("Policy analysis: fixes from outside attack 7", .tags(.volume))
struct PolicyAnalysisAttackTests {
    static func scope(_ json: String) throws -> RequestMatcher {
        let object = try #require(try JSONParser().parse(Array(json.utf8)).objectValue)
        return try PolicyAnalysis.queryMatcher(object, at: .root).get()
    }

    static func serialized(_ object: JSONObject) -> String { JSONValue.object(object).serialized }

    // MARK: F1

    @Test("a 70-host list held in an image table is seen: reachable, and not equivalent to an empty chain")
    func imageTableHostsAreSeen() throws {
        let hosts = (0..<70).map { "\"b\($0).example\"" }.joined(separator: ",")
        let json = #"{"handlers": [{"name": "blk", "type": "cancel", "match": {"hosts": [\#(hosts)]}}]}"#
        let image = try loadImage(try compileImage(json))
        #expect(image.links.first?.matcher.hosts?.mapped != nil, "the list is in a table, as the attack needs")
        let handlers = PolicyAnalysis.reachability(image)
        #expect(handlers.first?.reachable == true)
        let cancel = PolicyAnalysis.query(image, reaching: .verdict(.cancel), within: nil)
        #expect(cancel.reachable == true)
        let onHost = PolicyAnalysis.query(image, reaching: .handler("blk"), within: try Self.scope(#"{"hosts": ["b1.example"]}"#))
        #expect(onHost.reachable == true)
        let empty = try compile(#"{"handlers": []}"#)
        let equivalence = PolicyAnalysis.equivalence(image, empty)
        #expect(equivalence.equivalent == false)
        #expect(equivalence.counterexamples.contains { $0.first.handler == "blk" })
    }

    @Test("70 hosts and 70 pathPrefixes in tables: the handler is reachable only inside both lists")
    func imageTablePrefixesAreSeen() throws {
        let hosts = (0..<70).map { "\"h\($0).example\"" }.joined(separator: ",")
        let prefixes = (0..<70).map { "\"/p\($0)\"" }.joined(separator: ",")
        let json = #"""
            {"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#(hosts)], "pathPrefixes": [\#(prefixes)]}},
             {"name": "after", "type": "allow", "match": {"hosts": ["h1.example"], "pathPrefixes": ["/p1/x"]}}]}
            """#
        let image = try loadImage(try compileImage(json))
        let fromJSON = try compile(json)
        let handlers = PolicyAnalysis.reachability(image)
        #expect(handlers.map(\.reachable) == [true, false], "after is inside big's lists: shadowed")
        #expect(handlers.last?.shadowedBy == ["big"])
        #expect(
            Self.serialized(PolicyAnalysis.reachabilityObject(handlers))
                == Self.serialized(PolicyAnalysis.reachabilityObject(PolicyAnalysis.reachability(fromJSON))))
    }

    @Test(
        "analysis of a compiled image equals analysis of its JSON source (reachability, equivalence, queries)",
        arguments: [UInt64(11), 12, 13, 14])
    func imageAnalysisEqualsJSON(seed: UInt64) throws {
        let first = GeneratedChain.config(handlers: 24, seed: seed, longList: 80)
        let second = GeneratedChain.config(handlers: 24, seed: seed &+ 100, longList: 70)
        let firstJSON = try compile(first)
        let secondJSON = try compile(second)
        let firstImage = try loadImage(try compileImage(first))
        let secondImage = try loadImage(try compileImage(second))
        #expect(firstImage.links.contains { $0.matcher.hosts?.mapped != nil || $0.matcher.paths.mappedPrefixes != nil })
        #expect(
            Self.serialized(PolicyAnalysis.reachabilityObject(PolicyAnalysis.reachability(firstImage)))
                == Self.serialized(PolicyAnalysis.reachabilityObject(PolicyAnalysis.reachability(firstJSON))))
        let imageEquivalence = PolicyAnalysis.equivalenceObject(PolicyAnalysis.equivalence(firstImage, secondImage))
        let jsonEquivalence = PolicyAnalysis.equivalenceObject(PolicyAnalysis.equivalence(firstJSON, secondJSON))
        #expect(Self.serialized(imageEquivalence) == Self.serialized(jsonEquivalence))
        let scopes = [
            nil, #"{"hosts": ["*.w3.test"]}"#, #"{"hosts": ["@internal"]}"#, #"{"pathPrefixes": ["/a1"]}"#,
            #"{"methods": ["POST"]}"#,
        ]
        let targets: [PolicyAnalysis.Target] = [.verdict(.allow), .verdict(.cancel), .handler("h3"), .handler("h20")]
        for scope in scopes {
            let matcher = try scope.map(Self.scope)
            for target in targets {
                let fromImage = PolicyAnalysis.query(firstImage, reaching: target, within: matcher)
                let fromSource = PolicyAnalysis.query(firstJSON, reaching: target, within: matcher)
                #expect(
                    Self.serialized(PolicyAnalysis.queryObject(fromImage))
                        == Self.serialized(PolicyAnalysis.queryObject(fromSource)), "\(scope ?? "everything") \(target)")
            }
        }
    }

    // MARK: F2

    @Test("a scope's request is read as the engine reads it: /public/..%2Fsecret is in pathPrefixes [\"/public\"]")
    func scopeUnderDecodedSeparatorReading() throws {
        let policy = try compile(#"{"handlers": [{"name": "H", "type": "cancel", "match": {"pathPrefixes": ["/secret"]}}]}"#)
        for (target, scope) in [
            (PolicyAnalysis.Target.verdict(.cancel), #"{"pathPrefixes": ["/public"]}"#),
            (.handler("H"), #"{"pathPatterns": ["/public/*"]}"#),
        ] {
            let answer = PolicyAnalysis.query(policy, reaching: target, within: try Self.scope(scope))
            #expect(answer.reachable == true, "\(scope)")
            let witness = try #require(answer.witness)
            #expect(witness.url.contains("%2F"), "the witness is decided on its decoded reading: \(witness.url)")
            #expect(try policy.decide(witness).handler == "H")
            #expect(try Self.scope(scope).holdsOnSomeReading(CanonicalRequest(witness)))
        }
        // With an allow before it (the attacker's c_pct2): the decoded reading still reaches H.
        let guarded = try compile(
            #"{"handlers": [{"name": "E", "type": "allow", "match": {"pathPrefixes": ["/public"]}}, {"name": "H", "type": "about", "match": {"paths": ["/secret"]}}]}"#
        )
        let answer = PolicyAnalysis.query(
            guarded, reaching: .handler("H"), within: try Self.scope(#"{"pathPatterns": ["/public/*"]}"#))
        #expect(answer.reachable == true)
        // An exact path scope: no request built for the decoded reading stays in it (none or unknown, never a witness).
        let exact = PolicyAnalysis.query(policy, reaching: .handler("H"), within: try Self.scope(#"{"paths": ["/public"]}"#))
        #expect(exact.reachable != true)
    }

    static let differentialPolicies = [
        #"{"handlers": [{"name": "H", "type": "cancel", "match": {"pathPrefixes": ["/secret"]}}]}"#,
        #"{"handlers": [{"name": "E", "type": "allow", "match": {"pathPrefixes": ["/public"]}}, {"name": "H", "type": "about", "match": {"paths": ["/secret"]}}]}"#,
        #"{"defaultDecision": "cancel", "handlers": [{"name": "P", "type": "allow", "match": {"pathPatterns": ["/public/*"]}}, {"name": "H", "type": "cancel", "match": {"paths": ["/Admin"], "caseSensitive": true}}]}"#,
        #"{"handlers": [{"name": "H", "type": "cancel", "match": {"hosts": ["a.example"], "paths": ["/x/y"]}}, {"name": "A", "type": "allow", "match": {"pathPrefixes": ["/x"]}}]}"#,
        #"{"handlers": [{"name": "H", "type": "logout", "match": {"paths": ["/logout"], "methods": ["POST"]}}]}"#,
    ]

    static let differentialScopes = [
        #"{"pathPrefixes": ["/public"]}"#, #"{"pathPatterns": ["/public/*"]}"#, #"{"paths": ["/public"]}"#,
        #"{"pathPrefixes": ["/x"], "hosts": ["a.example"]}"#, #"{"paths": ["/secret"], "methods": ["GET"]}"#,
        #"{"pathPrefixes": ["/a;b"]}"#, #"{"hosts": ["b.example"]}"#, #"{"pathPrefixes": ["/secret"]}"#,
        #"{"pathPrefixes": ["/public"], "methods": ["PUT"]}"#, #"{"pathPatterns": ["/x/*"], "hosts": ["b.example"]}"#,
    ]

    /// Paths with encoded separators, encoded dots, dot segments, `;` parameters and case.
    static func differentialPaths() -> [String] {
        let heads = ["/public", "/public/a", "/x", "/a;b", "/PUBLIC", "/x/y", "/"]
        let tails = [
            "secret", "Secret", "logout", "x/y", "Admin", "admin", "y", "secret;p=1", "%2Esecret", "logout/",
        ]
        let joins = ["/", "/..%2F", "/..%2f..%2F", "%2F..%2F", "/%2E%2E%2F", "/x%2F../../", "/.%2F", ";x/..%5C", "/..%5C"]
        var paths: [String] = []
        for head in heads {
            for join in joins {
                for tail in tails { paths.append((head == "/" ? "" : head) + join + tail) }
            }
        }
        return paths + heads + ["/secret", "/logout", "/Admin", "/x/y", "/public/..%2Fsecret", "/%2Fsecret", "/secret/"]
    }

    @Test("differential: every 'none' answer survives generated URLs with %2F, %2E, .., ; and case")
    func noneSurvivesReadings() throws {
        var checked = 0
        var none = 0
        for config in Self.differentialPolicies {
            try Self.checkNoneAnswers(config, checked: &checked, none: &none)
        }
        #expect(none >= 10, "enough 'none' answers were put to the test (\(none))")
        #expect(checked > 1000, "requests in the scopes decided (\(checked))")
    }

    static func checkNoneAnswers(_ config: String, checked: inout Int, none: inout Int) throws {
        let policy = try compile(config)
        let targets: [PolicyAnalysis.Target] =
            [.verdict(.allow), .verdict(.cancel)] + policy.links.map { .handler($0.name) }
        for scopeText in Self.differentialScopes {
            let scope = try Self.scope(scopeText)
            for target in targets {
                let answer = PolicyAnalysis.query(policy, reaching: target, within: scope)
                if answer.reachable == true, let witness = answer.witness {
                    #expect(try scope.holdsOnSomeReading(CanonicalRequest(witness)), "\(scopeText): \(witness.url)")
                }
                guard answer.reachable == false else { continue }
                none += 1
                for host in ["a.example", "b.example"] {
                    for path in Self.differentialPaths() {
                        for method in ["GET", "POST", "PUT"] {
                            let request = NavigationRequest(url: "https://\(host)\(path)", method: method)
                            guard let canonical = try? CanonicalRequest(request), scope.holdsOnSomeReading(canonical) else {
                                continue
                            }
                            checked += 1
                            let decision = policy.decide(canonical)
                            let reached: Bool =
                                switch target {
                                case .verdict(let verdict): decision.verdict == verdict
                                case .handler(let name): decision.handler == name
                                }
                            #expect(!reached, "\(scopeText) → \(target) said none, but \(request.url) \(method) reaches it")
                        }
                    }
                }
            }
        }
    }

    // MARK: F4

    @Test("one budget per run: past it every open answer is unknown, and the steps spent stay near the bound")
    func oneBudgetPerRun() throws {
        let config = GeneratedChain.config(handlers: 300, seed: 5, longList: 20)
        let policy = try compile(config)
        let limits = PolicyAnalysis.Limits(steps: 20_000)
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        #expect(report.handlers.contains { $0.reachable == nil && $0.unknownReason?.contains("ran out of steps") == true })
        // One decision's worth of overshoot at most: the run stops at the first check past the bound.
        #expect(report.steps <= limits.steps + 100_000, "spent \(report.steps)")
        let comparison = PolicyAnalysis.equivalence(
            policy, try compile(GeneratedChain.config(handlers: 300, seed: 6, longList: 20)), limits: limits)
        #expect(comparison.equivalent != true)
        #expect(comparison.steps <= limits.steps + 100_000, "spent \(comparison.steps)")
        let unbounded = PolicyAnalysis.reachabilityReport(policy)
        #expect(unbounded.steps > limits.steps, "the same run without the small bound costs more than it")
    }

    @Test("a cancelled run stops: every open answer is unknown and says why")
    func cancelledRunStops() throws {
        let policy = try compile(GeneratedChain.config(handlers: 200, seed: 7, longList: 10))
        let limits = PolicyAnalysis.Limits(isCancelled: { true })
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        #expect(report.handlers.allSatisfy { $0.reachable == nil && $0.unknownReason?.contains("stopped") == true })
    }
}
