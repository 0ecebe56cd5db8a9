import JSONSupport
import Testing

@testable import NavigationPolicy

/// Issue 26 item 4: the linear-time matchers (``Glob``, ``SegmentTrie``, the segment index
/// and explain's skip of non-candidates) decide exactly what the simple quadratic ones did.
@Suite("Linear matching")
struct LinearMatchingTests {
    typealias SeededGenerator = ChainIndexEquivalenceTests.SeededGenerator

    /// The textbook dynamic-programming glob match: obviously right, O(pattern × subject).
    func referenceMatch(_ tokens: [PathPattern.Token], _ subject: [UInt8]) -> Bool {
        var flat: [UInt8?] = []  // nil = `?`, 0x2A placeholder handled via `isRun`
        var isRun: [Bool] = []
        for token in tokens {
            switch token {
            case .literal(let bytes):
                flat += bytes.map { Optional($0) }
                isRun += bytes.map { _ in false }
            case .anyOne:
                flat.append(nil)
                isRun.append(false)
            case .anyRun:
                flat.append(nil)
                isRun.append(true)
            }
        }
        var row = [Bool](repeating: false, count: subject.count + 1)
        row[0] = true
        for (index, element) in flat.enumerated() {
            var next = [Bool](repeating: false, count: subject.count + 1)
            if isRun[index] {
                next[0] = row[0]
                for position in 1...max(1, subject.count) where position <= subject.count {
                    next[position] = row[position] || next[position - 1]
                }
            } else {
                for position in 1...max(1, subject.count) where position <= subject.count {
                    next[position] = row[position - 1] && (element == nil || element == subject[position - 1])
                }
            }
            row = next
        }
        return row[subject.count]
    }

    @Test("Glob (KMP, shift-and, anchored ends) agrees with a DP matcher on random patterns", arguments: 0..<6)
    func globAgreesWithReference(seed: UInt64) {
        var rng = SeededGenerator(state: seed &+ 4)
        let alphabet: [UInt8] = Array("ab/".utf8)
        for _ in 0..<2000 {
            var tokens: [PathPattern.Token] = []
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                switch rng.next() % 5 {
                case 0: if tokens.last != .anyRun { tokens.append(.anyRun) }
                case 1: tokens.append(.anyOne)
                default:
                    let literal = (0..<(1 + Int(rng.next() % 4))).map { _ in alphabet[Int(rng.next() % 3)] }
                    if case .literal(let previous) = tokens.last {
                        tokens[tokens.count - 1] = .literal(previous + literal)
                    } else {
                        tokens.append(.literal(literal))
                    }
                }
            }
            let subject = (0..<Int(rng.next() % 14)).map { _ in alphabet[Int(rng.next() % 3)] }
            let glob = Glob(tokens)
            let got = subject.withUnsafeBufferPointer { glob.matches($0) }
            #expect(got == referenceMatch(tokens, subject), "\(tokens) vs \(String(decoding: subject, as: UTF8.self))")
        }
    }

    @Test("a chunk with ? longer than 64 bytes (byte-by-byte search) still matches right")
    func longWildChunk() throws {
        let middle = String(repeating: "ab", count: 40) + "?"
        let policy = try compile(
            #"{"handlers": [{"name": "p", "type": "cancel", "match": {"pathPatterns": ["/*\#(middle)z*"]}}]}"#)
        #expect(try decide(policy, "https://a.example/x" + String(repeating: "ab", count: 40) + "Qzy").handler == "p")
        #expect(try decide(policy, "https://a.example/x" + String(repeating: "ab", count: 39) + "Qzy").handler == nil)
    }

    @Test("many pathPrefixes (a segment trie) cover exactly what one comparison per prefix covers", arguments: 0..<4)
    func prefixTrie(seed: UInt64) throws {
        var rng = SeededGenerator(state: seed &+ 11)
        let pieces = ["a", "b", "A", "c", "ab"]
        func path() -> String { "/" + (0..<Int(rng.next() % 4)).map { _ in pieces[Int(rng.next() % 5)] }.joined(separator: "/") }
        for _ in 0..<40 {
            let prefixes = (0..<(1 + Int(rng.next() % 9))).map { _ in path() }
            let caseSensitive = rng.next() % 2 == 0
            let list = prefixes.map { "\"\($0)\"" }.joined(separator: ",")
            let policy = try compile(
                #"{"handlers": [{"name": "p", "type": "cancel", "match": {"pathPrefixes": [\#(list)], "caseSensitive": \#(caseSensitive)}}]}"#
            )
            for _ in 0..<40 {
                let request = try CanonicalRequest(NavigationRequest(url: "https://h.example" + path()))
                let form = caseSensitive ? request.matchPath.text : request.matchPath.folded
                let expected = prefixes.contains { prefix in
                    let key = caseSensitive ? prefix : prefix.lowercased()
                    return MatchPath.isCovered(
                        Substring(form), byPrefix: key == "/" || !key.hasSuffix("/") ? key : String(key.dropLast()))
                }
                #expect((policy.decide(request).handler == "p") == expected, "\(prefixes) vs \(form)")
            }
        }
    }

    /// Patterns filed by a required segment, many prefixes (trie) and explain's shortcut for
    /// non-candidates, on random chains: indexed == linear, explained == linear.
    @Test("segment-indexed patterns and explained decisions agree with the linear scan", arguments: 0..<12)
    func indexAndExplainAgree(seed: UInt64) throws {
        var rng = SeededGenerator(state: seed &+ 99)
        let patterns = ["/*/s1/*", "/*/s2", "/*/s1/x*", "/a*/s2/?", "/*/S1/*", "/*", "/a/*", "/*/b/c/*", "/*b*"]
        let prefixes = ["/a", "/a/b", "/b", "/", "/s1", "/A/B", "/c", "/d", "/e"]
        let pieces = ["a", "b", "c", "s1", "s2", "S1", "x", "", ".."]
        var handlers: [JSONValue] = []
        for index in 0..<(4 + Int(rng.next() % 30)) {
            var match = JSONObject()
            let count = 1 + Int(rng.next() % 6)
            switch rng.next() % 3 {
            case 0: match.append("pathPatterns", .array((0..<count).map { _ in .string(patterns[Int(rng.next() % 9)]) }))
            case 1: match.append("pathPrefixes", .array((0..<count).map { _ in .string(prefixes[Int(rng.next() % 9)]) }))
            default: match.append("targetFrames", .array([.string(rng.next() % 2 == 0 ? "main" : "sub")]))
            }
            if rng.next() % 3 == 0 { match.append("methods", .array([.string("POST")])) }
            if rng.next() % 4 == 0 { match.append("caseSensitive", .bool(true)) }
            handlers.append(.object(["name": .string("h\(index)"), "type": .string("cancel"), "match": .object(match)]))
        }
        let policy = try PolicyCompiler().compile(.object(["handlers": .array(handlers)]))
        for _ in 0..<200 {
            let path = "/" + (0..<Int(rng.next() % 6)).map { _ in pieces[Int(rng.next() % 9)] }.joined(separator: "/")
            let request = try CanonicalRequest(
                NavigationRequest(url: "https://h.example" + path, method: rng.next() % 2 == 0 ? "GET" : "POST"))
            let linear = policy.decideLinear(request)
            #expect(policy.decideIndexed(request) == linear, "seed \(seed): \(path)")
            let explained = policy.decide(request, explain: true)
            #expect(explained.handler == linear.handler && explained.verdict == linear.verdict, "seed \(seed): \(path)")
            // Each passed step names the field a full check names.
            for (step, link) in zip(explained.trace ?? [], policy.links) where step.outcome == .passed && step.field != nil {
                #expect(step.field == link.matcher.firstMismatch(request), "seed \(seed): \(path) \(link.name)")
            }
        }
    }

    @Test("an explain reason shows at most 200 bytes of a long path")
    func explainShortensPaths() throws {
        let policy = try compile(defaultPolicyJSON)
        let long = "/" + String(repeating: "a/", count: 2000)
        let decision = try policy.decide(NavigationRequest(url: "https://app.example.com" + long), explain: true)
        let reason = try #require(decision.trace?.first?.reason)
        #expect(reason.utf8.count < 260 && reason.hasSuffix("…\" is not in paths"), "\(reason)")
    }
}
