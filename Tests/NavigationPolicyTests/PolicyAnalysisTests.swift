import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 32: the analysis is checked against the engine. A mutation corpus over example and
/// generated chains: every "not equivalent" comes with counterexamples both chains really
/// decide differently, every "equivalent" survives 100,000 generated requests decided by both,
/// every seeded unreachable handler is found, and no handler a request reaches is flagged.
@Suite("Policy analysis", .tags(.volume))
struct PolicyAnalysisTests {
    typealias Generator = ChainIndexEquivalenceTests.SeededGenerator

    /// Chains as handler JSON objects (without the surrounding config), so mutations are list edits.
    static let bases: [(name: String, defaultDecision: String, handlers: [String])] = [
        (
            "default policy", "allow",
            [
                #"{"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}}"#,
                #"{"name": "about", "type": "about", "match": {"paths": ["/about"]}}"#,
                #"{"name": "payment", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}, "location": "https://checkout.example.com/open?target={url}"}"#,
            ]
        ),
        (
            "hosts, classes and ranges", "allow",
            [
                #"{"name": "internal", "type": "cancel", "match": {"hosts": ["@internal"]}}"#,
                #"{"name": "admin", "type": "cancel", "action": "admin", "match": {"hosts": ["*.example.com"], "pathPrefixes": ["/admin"]}}"#,
                #"{"name": "app", "type": "allow", "match": {"hosts": ["app.example.com", "10.1.0.0/16"], "schemes": ["https"]}}"#,
                #"{"name": "posts", "type": "cancel", "match": {"methods": ["POST"], "navigationTypes": ["formSubmitted"]}}"#,
                #"{"name": "frames", "type": "cancel", "action": "frame", "match": {"targetFrames": ["sub"], "pathPatterns": ["/embed/*"]}}"#,
                #"{"name": "docs", "type": "allow", "match": {"hosts": ["docs.example.com"], "paths": ["/x"], "pathPatterns": ["/x*"]}}"#,
            ]
        ),
        (
            "deny by default", "cancel",
            [
                #"{"name": "site", "type": "allow", "match": {"hosts": ["example.com", "*.example.com"], "schemes": ["https"]}}"#,
                #"{"name": "shadowed-admin", "type": "cancel", "mode": "shadow", "match": {"pathPrefixes": ["/admin"]}}"#,
                #"{"name": "get-any", "type": "allow", "match": {"methods": ["GET"], "hosts": ["cdn.test"]}}"#,
                #"{"name": "app", "type": "cancel", "action": "open-external", "match": {"schemes": ["myapp"]}}"#,
            ]
        ),
        (
            // Exact path regions: `*` inside, `?`, and case-sensitive next to case-insensitive letters.
            "general patterns and mixed case", "allow",
            [
                #"{"name": "api", "type": "cancel", "match": {"pathPatterns": ["/api/*/admin/*"]}}"#,
                #"{"name": "xz", "type": "cancel", "action": "xz", "match": {"pathPatterns": ["/x?z", "/v*/beta"]}}"#,
                #"{"name": "Admin", "type": "allow", "match": {"paths": ["/Admin"], "caseSensitive": true}}"#,
                #"{"name": "admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}}"#,
                #"{"name": "png", "type": "allow", "match": {"pathPatterns": ["/F*/*.PNG"], "caseSensitive": true}}"#,
            ]
        ),
    ]

    static func config(_ defaultDecision: String, _ handlers: [String]) throws -> CompiledPolicy {
        try compile(#"{"defaultDecision": "\#(defaultDecision)", "handlers": [\#(handlers.joined(separator: ","))]}"#)
    }

    /// A mutation: a name, the edited list, and what the analysis must answer (nil: either).
    struct Mutation {
        var name: String
        var handlers: [String]
        var equivalent: Bool?
    }

    static func renamed(_ handler: String, _ suffix: String) -> String {
        handler.replacing(#""name": ""#, with: #""name": "\#(suffix)"#, maxReplacements: 1)
    }

    static func mutations(of handlers: [String]) -> [Mutation] {
        var list: [Mutation] = []
        for index in handlers.indices {
            var deleted = handlers
            deleted.remove(at: index)
            list.append(Mutation(name: "delete \(index)", handlers: deleted, equivalent: nil))
            var copied = handlers
            copied.insert(renamed(handlers[index], "copy-"), at: index + 1)
            list.append(Mutation(name: "unreachable copy of \(index)", handlers: copied, equivalent: true))
            if index == 0 {
                var renamedList = handlers
                renamedList[index] = renamed(handlers[index], "renamed-")
                list.append(Mutation(name: "rename \(index)", handlers: renamedList, equivalent: true))
            }
            var action = handlers
            action[index] = handlers[index].replacing(#""type": ""#, with: #""action": "mutated", "type": ""#)
            if handlers[index].contains(#""action""#) || handlers[index].contains(#""type": "allow""#) {
                action[index] = handlers[index].replacing(#""type": "allow""#, with: #""type": "cancel""#)
                    .replacing(#""action": ""#, with: #""action": "x"#)
            }
            list.append(Mutation(name: "change action \(index)", handlers: action, equivalent: nil))
            var narrowed = handlers
            let narrowing =
                [#""methods": ["PATCH"]"#, #""schemes": ["wss"]"#, #""navigationTypes": ["reload"]"#].first { condition in
                    !handlers[index].contains(condition.prefix { $0 != ":" })
                } ?? #""targetFrames": ["sub"]"#
            narrowed[index] = handlers[index].replacing(#""match": {"#, with: #""match": {\#(narrowing), "#)
            list.append(Mutation(name: "narrow \(index)", handlers: narrowed, equivalent: nil))
            var widened = handlers
            widened[index] = handlers[index].replacing(#/"match": \{[^}]*\}/#, with: #""match": {}"#)
            list.append(Mutation(name: "widen \(index)", handlers: widened, equivalent: nil))
            if index + 1 < handlers.count {
                var swapped = handlers
                swapped.swapAt(index, index + 1)
                list.append(Mutation(name: "reorder \(index)", handlers: swapped, equivalent: nil))
            }
        }
        return list
    }

    #if NAVPOLICYD_SANITIZER_LOCKS
        /// Sanitizer builds (`make test-asan|test-tsan`) run the suite for memory and thread
        /// errors at 3-10× the cost: the fuzz is cut there; `make test-full` runs the 100,000.
        static let fuzzRequests = 10_000
    #else
        /// The acceptance's differential fuzz: requests per equivalent mutation (a fixed-seed
        /// sample of 10,000 unless NAVPOLICYD_TEST_VOLUME=full: `make test-full` runs the 100,000).
        static let fuzzRequests = TestVolume.count(full: 100_000, sample: 10_000)
    #endif

    @Test("mutation corpus: counterexamples decide differently, equivalents survive 100,000 requests")
    func mutationCorpus() throws {
        var checkedEquivalent = 0
        var checkedDifferent = 0
        var tiesUnknown = 0
        for base in Self.bases {
            let original = try Self.config(base.defaultDecision, base.handlers)
            let requests = Self.requests(for: original, count: Self.fuzzRequests, seed: 32)
            // The original's decisions once: each equivalent mutation then costs 100,000 decisions.
            let originalDecisions = requests.map { original.decide($0) }
            for mutation in Self.mutations(of: base.handlers) {
                let mutated = try Self.config(base.defaultDecision, mutation.handlers)
                let result = PolicyAnalysis.equivalence(original, mutated)
                let label = "\(base.name): \(mutation.name)"
                // A reordering of cancelling handlers with different outcomes is unknown since issue 40
                // (ReadingTieBreak): two readings of one request that both cancel go to the first in the chain.
                let tie = result.equivalent == nil && result.unknownReasons.contains { $0.contains("first in the chain") }
                if tie { tiesUnknown += 1 }
                if let expected = mutation.equivalent, !(tie && expected) {
                    #expect(result.equivalent == expected, "\(label): \(result.unknownReasons)")
                }
                switch result.equivalent {
                case false?:
                    #expect(!result.counterexamples.isEmpty, "\(label)")
                    for example in result.counterexamples {
                        let first = try original.decide(example.request)
                        let second = try mutated.decide(example.request)
                        #expect(!PolicyAnalysis.sameOutcome(first, second, comparingNames: false), "\(label): \(example.request)")
                    }
                    checkedDifferent += 1
                case true?:
                    let differing = requests.indices.first { index in
                        !PolicyAnalysis.sameOutcome(
                            originalDecisions[index], mutated.decide(requests[index]), comparingNames: false)
                    }
                    #expect(
                        differing == nil,
                        "\(label): equivalent, yet \(differing.map { requests[$0].href } ?? "") decides differently")
                    checkedEquivalent += 1
                case nil:
                    if !tie { Issue.record("\(label): unknown (\(result.unknownReasons)); these chains have no general pattern") }
                }
            }
        }
        print(
            "mutation corpus: \(checkedEquivalent) equivalent, \(checkedDifferent) different, \(tiesUnknown) unknown by the tie")
        #expect(checkedEquivalent >= 15 && checkedDifferent >= 20, "\(checkedEquivalent) \(checkedDifferent) \(tiesUnknown)")
    }

    @Test("every seeded unreachable copy is found with its cover; no reached handler is flagged")
    func reachability() throws {
        for base in Self.bases {
            for index in base.handlers.indices {
                var handlers = base.handlers
                handlers.insert(Self.renamed(base.handlers[index], "copy-"), at: index + 1)
                let policy = try Self.config(base.defaultDecision, handlers)
                let report = PolicyAnalysis.reachability(policy)
                let copy = report[index + 1]
                let isShadow = base.handlers[index].contains("shadow")
                if !isShadow {
                    #expect(copy.reachable == false, "\(base.name): copy of \(index)")
                    #expect(copy.shadowedBy.contains(report[index].name), "\(base.name): \(copy.shadowedBy)")
                }
                Self.checkAgainstFuzz(policy, report)
            }
        }
    }

    /// Handlers found unreachable are reached by no generated request; witnesses reach theirs.
    static func checkAgainstFuzz(_ policy: CompiledPolicy, _ report: [PolicyAnalysis.Reachability]) {
        let reached = Set(
            requests(for: policy, count: 5_000, seed: 7).flatMap { request in
                let decision = policy.decide(request)
                return [decision.handler].compactMap { $0 } + (decision.shadow ?? []).map(\.handler)
            })
        for handler in report {
            if handler.reachable == false { #expect(!reached.contains(handler.name), "\(handler.name) was reached") }
            if let witness = handler.witness, let decision = try? policy.decide(witness) {
                #expect(decision.handler == handler.name || (decision.shadow ?? []).contains { $0.handler == handler.name })
            }
        }
    }

    @Test("shadow rollout: a shadow copy after its enforcing twin is reachable, never flagged")
    func shadowRollout() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "block-admin-new", "type": "cancel", "mode": "shadow", "match": {"pathPrefixes": ["/admin"]}}"#,
                #"{"name": "block-admin", "type": "cancel", "match": {"pathPrefixes": ["/admin"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report.map(\.reachable) == [true, true])
    }

    @Test("covers made of several handlers together are found, each member covering a part")
    func jointCover() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "get", "type": "cancel", "match": {"methods": ["GET"]}}"#,
                #"{"name": "other", "type": "allow", "match": {"methods": ["POST", "PUT"]}}"#,
                #"{"name": "unused", "type": "allow", "match": {"hosts": ["a.test"]}}"#,
                #"{"name": "late", "type": "cancel", "match": {"methods": ["GET", "POST"], "hosts": ["b.test"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[3].reachable == false)
        #expect(Set(report[3].shadowedBy) == ["get", "other"])
        #expect(report[2].reachable == true)
    }

    @Test("classes and ranges: nothing on @internal is allowed; loopback spellings are covered")
    func classesAndRanges() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "loopback", "type": "cancel", "match": {"hosts": ["@loopback"]}}"#,
                #"{"name": "private", "type": "cancel", "match": {"hosts": ["@private", "@link-local"]}}"#,
                #"{"name": "ten", "type": "allow", "match": {"hosts": ["10.0.0.0/8"]}}"#,
                #"{"name": "names", "type": "allow", "match": {"hosts": ["localhost", "127.0.0.1", "[::1]"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report.map(\.reachable) == [true, true, false, false])
        #expect(report[2].shadowedBy == ["private"])
        let internalScope = try #require(
            try? PolicyAnalysis.queryMatcher(["hosts": .array([.string("@internal")])], at: .root).get())
        let allowInternal = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: internalScope)
        // 0.0.0.0 and :: are unspecified: in @internal and in @loopback here, so every internal host is cancelled.
        #expect(allowInternal.reachable == false, "\(allowInternal)")
        let payScope = try #require(
            try? PolicyAnalysis.queryMatcher(["hosts": .array([.string("*.example.com")])], at: .root).get())
        let allowPay = PolicyAnalysis.query(policy, reaching: .verdict(.allow), within: payScope)
        #expect(allowPay.reachable == true)
        #expect(allowPay.witness.map { $0.url.contains("example.com") } == true)
    }

    @Test("general patterns are cut exactly: a cover by /*/secret/* is proven (AnalysisPathAutomatonTests has more)")
    func generalPatternsExact() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "star", "type": "cancel", "match": {"pathPatterns": ["/*/secret/*"]}}"#,
                #"{"name": "later", "type": "cancel", "match": {"paths": ["/a/secret/b"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[0].reachable == true)
        #expect(report[1].reachable == false && report[1].shadowedBy == ["star"], "\(report[1])")
        let reordered = try Self.config(
            "allow",
            [
                #"{"name": "later", "type": "cancel", "match": {"paths": ["/a/secret/b"]}}"#,
                #"{"name": "star", "type": "cancel", "match": {"pathPatterns": ["/*/secret/*"]}}"#,
            ])
        #expect(PolicyAnalysis.equivalence(policy, reordered).equivalent == true)
        #expect(PolicyAnalysis.equivalence(policy, reordered, comparingNames: true).equivalent == false)
    }

    @Test("urlPatterns never cover and make claims that rest on them unknown, naming regexp groups")
    func urlPatterns() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "up", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin/*"]}}"#,
                #"{"name": "groups", "type": "cancel", "match": {"urlPatterns": [{"pathname": "/u/(\\d+)"}]}}"#,
                #"{"name": "later", "type": "cancel", "match": {"hosts": ["a.example.com"], "pathPrefixes": ["/admin"]}}"#,
                #"{"name": "all", "type": "cancel"}"#,
                #"{"name": "never", "type": "allow", "match": {"hosts": ["b.test"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(!report.prefix(3).contains { $0.reachable == false }, "a urlPatterns handler never proves a cover")
        #expect(report[4].reachable == false && report[4].shadowedBy == ["all"])
        let equivalence = PolicyAnalysis.equivalence(policy, policy)
        #expect(equivalence.equivalent == nil)
        #expect(equivalence.unknownReasons.contains { $0.contains("urlPatterns") && $0.contains("regexp groups") })
    }

    @Test("a custom scheme spells a listed address another way: the range after the exact host stays reachable")
    func opaqueSpellings() throws {
        let policy = try Self.config(
            "allow",
            [
                #"{"name": "exact", "type": "allow", "match": {"hosts": ["127.0.0.1", "localhost"]}}"#,
                #"{"name": "range", "type": "cancel", "match": {"hosts": ["127.0.0.1/32"]}}"#,
            ])
        let report = PolicyAnalysis.reachability(policy)
        #expect(report[1].reachable == true, "\(report[1])")
        let witness = try #require(report[1].witness)
        #expect(try policy.decide(witness).handler == "range")
    }

    @Test("the step bound turns a long search into unknown")
    func budget() throws {
        let policy = try Self.config("allow", Self.bases[1].handlers)
        let report = PolicyAnalysis.reachability(policy, limits: PolicyAnalysis.Limits(steps: 3))
        #expect(report.contains { $0.unknownReason?.contains("ran out of steps") == true })
        #expect(!report.contains { $0.reachable == false })
    }

    @Test("generated chains: reachability agrees with the engine on 5,000 requests each")
    func generatedChains() throws {
        var rng = Generator(state: 3232)
        let hosts = ["a.example", "*.example", "b.a.example", "@loopback", "10.0.0.0/8", "127.0.0.1", "[::1]", "@private"]
        let paths = [
            #""paths": ["/a"]"#, #""pathPrefixes": ["/a"]"#, #""pathPatterns": ["/a/*"]"#, #""pathPrefixes": ["/"]"#,
            // Exact path regions: general patterns and case-sensitive letters next to folded ones.
            #""pathPatterns": ["/a/*/b"]"#, #""pathPatterns": ["/a?"]"#, #""paths": ["/A"], "caseSensitive": true"#,
            #""pathPatterns": ["/A*"], "caseSensitive": true"#,
        ]
        for round in 0..<30 {
            var handlers: [String] = []
            for index in 0..<Int.random(in: 3...12, using: &rng) {
                var fields: [String] = []
                if Bool.random(using: &rng) {
                    let picked = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                        "\"\(hosts.randomElement(using: &rng) ?? "")\""
                    }
                    fields.append(#""hosts": [\#(picked.joined(separator: ","))]"#)
                }
                if Bool.random(using: &rng) { fields.append(paths.randomElement(using: &rng) ?? "") }
                if Int.random(in: 0..<4, using: &rng) == 0 { fields.append(#""methods": ["POST"]"#) }
                if Int.random(in: 0..<4, using: &rng) == 0 { fields.append(#""schemes": ["https"]"#) }
                let type = Bool.random(using: &rng) ? "allow" : "cancel"
                handlers.append(#"{"name": "h\#(index)", "type": "\#(type)", "match": {\#(fields.joined(separator: ","))}}"#)
            }
            let policy = try Self.config(round % 2 == 0 ? "allow" : "cancel", handlers)
            let report = PolicyAnalysis.reachability(policy)
            #expect(!report.contains { $0.reachable == nil }, "round \(round): \(report.compactMap(\.unknownReason))")
            Self.checkAgainstFuzz(policy, report)
            var reversed = handlers
            reversed.reverse()
            let other = try Self.config(round % 2 == 0 ? "allow" : "cancel", reversed)
            let result = PolicyAnalysis.equivalence(policy, other)
            if result.equivalent == true {
                for request in Self.requests(for: policy, count: 5_000, seed: UInt64(round)) {
                    #expect(PolicyAnalysis.sameOutcome(policy.decide(request), other.decide(request), comparingNames: false))
                }
            }
            for example in result.counterexamples {
                #expect(
                    !PolicyAnalysis.sameOutcome(
                        try policy.decide(example.request), try other.decide(example.request), comparingNames: false))
            }
        }
    }

    // MARK: Request generation

    /// Requests biased toward a chain's own hosts, paths and boundaries: each host entry with
    /// names under and beside it and the edges of ranges, each path with its neighbours
    /// (a segment more, a byte more, other case, a trailing slash, dot segments, `;`).
    static func requests(for policy: CompiledPolicy, count: Int, seed: UInt64) -> [CanonicalRequest] {
        var rng = Generator(state: seed)
        var hostPool = [
            "example.com", "other.test", "localhost", "a.localhost", "127.0.0.1", "0.0.0.0", "[::1]", "[::]",
            "10.0.0.1", "192.168.1.1", "[fd00::1]", "169.254.1.1", "8.8.8.8", "[2001:db8::1]", "[::ffff:127.0.0.1]",
            "0x7f.1", "100.64.0.1",
        ]
        var pathPool = ["/", "/x", "/a", "/a/b", "/admin", "/ADMIN/x"]
        for link in policy.links {
            for entry in link.matcher.entries {
                switch entry.test {
                case .host(let host): hostPool += [host, "x." + host, host + "."]
                case .hostWildcard(let suffix): hostPool += [suffix, "x." + suffix, "y.x." + suffix, "x" + suffix]
                case .hostRange(let range):
                    let base = range.base.isIPv4 ? range.base.description : "[\(range.base.description)]"
                    hostPool.append(base)
                case .path(let path), .prefix(let path):
                    pathPool += [path, path + "/", path + "/y", path + "y", path.uppercased(), path + "/./z", path + ";p"]
                case .pattern(let pattern):
                    let text = pattern.text.replacing("*", with: "").replacing("?", with: "q")
                    pathPool += [text, text + "z", text + "/z", text.uppercased()]
                    // Wildcards filled in: a segment, two segments, and other case.
                    let filled = pattern.text.replacing("*", with: "x").replacing("?", with: "Q")
                    pathPool += [filled, pattern.text.replacing("*", with: "x/y"), filled.lowercased(), filled.uppercased()]
                default: break
                }
            }
        }
        let schemes = ["https", "http", "myapp", "wss", "ftp"] + policy.links.flatMap { Array($0.matcher.schemes ?? []) }
        let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
        var requests: [CanonicalRequest] = []
        requests.reserveCapacity(count)
        while requests.count < count {
            let scheme = schemes.randomElement(using: &rng) ?? "https"
            let host = hostPool.randomElement(using: &rng) ?? "example.com"
            let path = pathPool.randomElement(using: &rng) ?? "/"
            let url = Int.random(in: 0..<50, using: &rng) == 0 ? "\(scheme):opaque" : "\(scheme)://\(host)\(path)"
            let request = NavigationRequest(
                url: url, method: methods.randomElement(using: &rng) ?? "GET",
                navigationType: NavigationType.allCases.randomElement(using: &rng) ?? .other,
                targetFrame: TargetFrame.allCases.randomElement(using: &rng) ?? .main)
            if let canonical = try? CanonicalRequest(request) { requests.append(canonical) }
        }
        return requests
    }
}
