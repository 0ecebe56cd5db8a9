import Testing

@testable import NavigationPolicy

/// A handler's pattern index (``PatternIndex``) must never change an answer: on seeded random
/// patterns and paths, the indexed `PathSet` agrees with trying every pattern in order.
@Suite("Pattern index equivalence")
struct PatternIndexTests {
    /// SplitMix64, so a failure reproduces from its seed (shared with the chain index tests).
    typealias SeededGenerator = ChainIndexEquivalenceTests.SeededGenerator

    /// Pieces that make patterns of every index kind: literal prefixes (`/api/v?`), required
    /// segments (`/*/secret/*`), literal ends (`/*a*b7`), the `/*` directory form, `?`, and
    /// residual ones (`/*a*`), in both cases.
    static let patternPieces = [
        "/", "/", "a", "A", "b", "secret", "Secret", "api", "v", "7", "*", "*", "?", "/*", ".json", "x",
    ]
    static let pathPieces = [
        "/", "/", "a", "A", "b", "secret", "SECRET", "api", "v", "7", "v7", ".json", "x", "%41", "/secret/", "ab7",
    ]

    static func random(_ pieces: [String], count: Int, using generator: inout SeededGenerator) -> String {
        "/" + (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
    }

    static func matchPath(_ path: String) throws -> MatchPath {
        MatchPath(try URLRecord.parse("http://x.example" + path))
    }

    @Test("indexed and scanned pattern sets agree on whether and which pattern matches", arguments: 1...12)
    func agreesWithScan(seed: UInt64) throws {
        var generator = SeededGenerator(state: seed)
        let caseSensitive = seed % 3 == 0
        var set = PathSet(caseSensitive: caseSensitive)
        let patternCount = FewKeys.limit + 1 + Int(generator.next() % 60)
        while set.patterns.count < patternCount {
            let text = Self.random(Self.patternPieces, count: 1 + Int(generator.next() % 6), using: &generator)
            if case .success(let pattern) = PathPattern.compile(text, caseSensitive: caseSensitive) {
                set.insertPattern(pattern)
            }
        }
        set.indexPatterns()
        let patterns = set.patterns
        var matched = 0
        for _ in 0..<400 {
            let text = Self.random(Self.pathPieces, count: Int(generator.next() % 9), using: &generator)
            let path = try Self.matchPath(text)
            let scanned = patterns.firstIndex { $0.matches(path) }
            #expect(set.containsPatternMatch(path) == (scanned != nil), "seed \(seed): \(text)")
            #expect(set.firstPatternMatch(path) == scanned, "seed \(seed): \(text)")
            if scanned != nil { matched += 1 }
        }
        #expect(matched > 0, "seed \(seed): the generator must produce matches")
    }

    @Test("each index kind: prefix, required segment, literal end, literal start, residual")
    func indexKinds() throws {
        for caseSensitive in [false, true] {
            var set = PathSet(caseSensitive: caseSensitive)
            let texts = ["/api/v?/*", "/*/Secret/*", "/*a*B7", "/ab?*", "/a?/*", "/*x*", "/?*"]
            for text in texts {
                guard case .success(let pattern) = PathPattern.compile(text, caseSensitive: caseSensitive) else {
                    Issue.record("\(text) must compile")
                    continue
                }
                set.insertPattern(pattern)
            }
            set.indexPatterns()
            let paths = [
                "/", "/api/v2", "/api/v2/", "/API/v2/x", "/q/Secret", "/q/secret/z", "/Secret/z", "/zaab7", "/zaB7",
                "/abc", "/ABc", "/ab", "/az/", "/az", "/zzx", "/x", "/", "/a", "javascript:x",
            ]
            for text in paths {
                let path =
                    text.hasPrefix("/")
                    ? try Self.matchPath(text) : MatchPath(try URLRecord.parse(text))
                let scanned = set.patterns.firstIndex { $0.matches(path) }
                #expect(set.containsPatternMatch(path) == (scanned != nil), "\(caseSensitive) \(text)")
                #expect(set.firstPatternMatch(path) == scanned, "\(caseSensitive) \(text)")
            }
        }
    }

    @Test("explain names the first matching pattern in config order, found through the index")
    func explainNamesFirstMatch() throws {
        let patterns = (0..<50).map { "\"/*/secret\($0)/*\"" } + ["\"/*a*b7\"", "\"/*/secret7/*\""]
        let policy = try compile(
            #"{"handlers": [{"name": "s", "type": "cancel", "match": {"pathPatterns": [\#(patterns.joined(separator: ","))]}}]}"#
        )
        let decision = try policy.decide(
            NavigationRequest(url: "https://x.example/q/secret7/zab7"), explain: true)
        #expect(decision.handler == "s")
        let matched = decision.trace?.last?.matched ?? []
        #expect(matched.map(\.index) == [7])
    }
}
