import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The acceptance's mutation corpus (``PolicyAnalysisTests/mutations(of:)``) on chains with
/// `urlPatterns`: every "not equivalent" has counterexamples that really decide differently;
/// every "equivalent" survives a differential fuzz whose requests include the spellings the
/// standard reading reads apart (`host.`, `:1`, `/%61dmin`, `;q`, `/dir/..;/x`); every seeded
/// unreachable copy is found, and no reached handler is flagged.
@Suite("Policy analysis: urlPatterns mutation corpus", .tags(.volume))
struct AnalysisURLPatternRegionsCorpusTests {
    typealias Generator = ChainIndexEquivalenceTests.SeededGenerator

    /// Patterns that read alike in both readings (host, path and search `*`): answers are exact.
    static let alike: [String] = [
        #"{"name": "web-posts", "type": "cancel", "action": "web", "match": {"urlPatterns": [{"protocol": "http{s}?"}], "methods": ["POST"]}}"#,
        #"{"name": "default-port", "type": "allow", "match": {"urlPatterns": [{"port": ""}], "hosts": ["*.example.com"]}}"#,
        #"{"name": "app", "type": "cancel", "action": "open", "match": {"urlPatterns": [{"protocol": "myapp"}]}}"#,
        #"{"name": "admin", "type": "cancel", "match": {"hosts": ["a.example.com"], "pathPrefixes": ["/admin"]}}"#,
    ]

    /// Patterns whose host and path read differently in the standard reading.
    static let differing: [String] = [
        #"{"name": "adm", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin/*"]}}"#,
        #"{"name": "docs", "type": "allow", "match": {"urlPatterns": [{"hostname": "docs.test", "pathname": "/x/*"}]}}"#,
        #"{"name": "rest", "type": "cancel", "action": "r", "match": {"hosts": ["docs.test"]}}"#,
        #"{"name": "shop", "type": "allow", "match": {"urlPatterns": ["http{s}?://{*.}?shop.test/cart/:item"]}}"#,
    ]

    @Test(
        "mutations: counterexamples decide differently, equivalents survive the fuzz with standard spellings",
        arguments: [("alike", true), ("differing", false)])
    func mutationCorpus(_ name: String, _ exact: Bool) throws {
        let handlers = exact ? Self.alike : Self.differing
        for defaultDecision in ["allow", "cancel"] {
            let original = try PolicyAnalysisTests.config(defaultDecision, handlers)
            let requests = Self.requests(for: original, count: PolicyAnalysisTests.fuzzRequests, seed: 31)
            let originalDecisions = requests.map { original.decide($0) }
            var different = 0
            var equivalent = 0
            for mutation in PolicyAnalysisTests.mutations(of: handlers) {
                // Widening cuts a `match` block at its first `}`: a pattern object inside makes it invalid JSON.
                guard let mutated = try? PolicyAnalysisTests.config(defaultDecision, mutation.handlers) else { continue }
                let label = "\(name), default \(defaultDecision): \(mutation.name)"
                let result = PolicyAnalysis.equivalence(original, mutated)
                // Differing patterns: a copy or a rename is still proven equivalent (the same
                // chain once copies are left out); other equivalents may be unknown.
                if let expected = mutation.equivalent, exact || expected {
                    #expect(result.equivalent == expected, "\(label): \(result.unknownReasons)")
                }
                switch result.equivalent {
                case false?:
                    // Every counterexample printed must really decide differently.
                    let wrong = result.counterexamples.filter { example in
                        guard let one = try? original.decide(example.request),
                            let other = try? mutated.decide(example.request)
                        else { return true }
                        return PolicyAnalysis.sameOutcome(one, other, comparingNames: false)
                    }
                    #expect(!result.counterexamples.isEmpty && wrong.isEmpty, "\(label): \(wrong.map(\.request.url))")
                    different += 1
                case true?:
                    let differs = zip(requests, originalDecisions).first { request, decision in
                        !PolicyAnalysis.sameOutcome(decision, mutated.decide(request), comparingNames: false)
                    }
                    #expect(differs == nil, "\(label): equivalent, yet \(differs?.0.href ?? "") differs")
                    equivalent += 1
                case nil:
                    #expect(!exact, "\(label): unknown (\(result.unknownReasons))")
                    #expect(result.unknownReasons.contains { $0.contains("standard") }, "\(label): \(result.unknownReasons)")
                }
            }
            #expect(different >= 5, "\(name): \(different) not equivalent")
            #expect(equivalent >= 4, "\(name): \(equivalent) equivalent")
        }
    }

    @Test(
        "seeded unreachable copies are found with their cover; reached handlers are confirmed by the fuzz",
        arguments: [true, false])
    func reachability(_ exact: Bool) throws {
        let handlers = exact ? Self.alike : Self.differing
        for index in handlers.indices {
            var seeded = handlers
            seeded.insert(PolicyAnalysisTests.renamed(handlers[index], "copy-"), at: index + 1)
            for defaultDecision in ["allow", "cancel"] {
                let policy = try PolicyAnalysisTests.config(defaultDecision, seeded)
                let report = PolicyAnalysis.reachability(policy)
                let copy = report[index + 1]
                let isAllow = handlers[index].contains(#""type": "allow""#)
                if exact || isAllow {
                    #expect(copy.reachable == false, "\(copy)")
                    #expect(copy.shadowedBy.contains(report[index].name), "\(copy)")
                } else {
                    // A cancel copy of a differing pattern: the standard reading is the copy's too, so
                    // never reached; unknown is allowed, a witness is not.
                    #expect(copy.reachable != true, "\(copy)")
                }
                for handler in report where handler.reachable == true {
                    let witness = try #require(handler.witness)
                    #expect(try policy.decide(witness).handler == handler.name, "\(witness.url)")
                }
                // No handler the fuzz reaches is called unreachable.
                for request in Self.requests(for: policy, count: 20_000, seed: 7) {
                    let reached = policy.decide(request).handler
                    #expect(
                        !report.contains { $0.name == reached && $0.reachable == false },
                        "\(reached ?? "") reached by \(request.href)")
                }
            }
        }
    }

    /// ``PolicyAnalysisTests/requests(for:count:seed:)`` plus requests from each pattern's own
    /// witness URL, respelled the ways the standard reading reads apart from the match form.
    static func requests(for policy: CompiledPolicy, count: Int, seed: UInt64) -> [CanonicalRequest] {
        var rng = Generator(state: seed)
        var urls: [String] = []
        for link in policy.links {
            for pattern in link.matcher.urlPatterns ?? [] {
                guard let url = URLPatternWitness.url(pattern, fresh: "qz0") else { continue }
                urls.append(url)
                urls += PolicyAnalysis.dodges(of: NavigationRequest(url: url), patternURLs: [url]).map(\.url)
                urls.append(url.replacing("qz0", with: "a.b"))
            }
        }
        var extra: [String] = []
        for url in urls {
            guard let parsed = try? URLRecord.parse(url) else { continue }
            let host = parsed.hostname
            for scheme in ["https", "http", "myapp"] {
                for port in ["", ":1", ":443"] {
                    for path in [parsed.pathname, "/", "/x", "/admin", "/x/..;/y", parsed.pathname + ";q"] {
                        extra.append("\(scheme)://\(host)\(port)\(path)")
                        extra.append("\(scheme)://\(host).\(port)\(path)")
                    }
                }
            }
        }
        // The chain's own neighbourhoods for half, the patterns' respellings for the rest; the
        // other fields vary independently of the URL.
        var requests = PolicyAnalysisTests.requests(for: policy, count: count / 2, seed: seed)
        let fields = PolicyAnalysisTests.requests(for: policy, count: count / 2, seed: seed &+ 1)
        for template in fields where !extra.isEmpty {
            var request = template.original
            request.url = extra.randomElement(using: &rng) ?? "https://example.com/"
            if let canonical = try? CanonicalRequest(request) { requests.append(canonical) }
        }
        return requests
    }
}
