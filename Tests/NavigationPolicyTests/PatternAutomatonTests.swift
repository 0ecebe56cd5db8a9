import Testing

@testable import NavigationPolicy

/// The one-pass automaton (``PatternAutomaton``) must report exactly the patterns that match
/// when each is tried alone (``Glob/matches(_:)``), on seeded random patterns and paths built
/// to make pieces overlap, repeat, share prefixes and suffixes, and end the path.
@Suite("Pattern automaton equivalence")
struct PatternAutomatonTests {
    typealias SeededGenerator = ChainIndexEquivalenceTests.SeededGenerator

    /// Small alphabet on purpose: pieces then occur, overlap and repeat often (`aa`, `aba`).
    static let patternPieces = ["/", "a", "b", "ab", "aa", "ba", "*", "*", "?", "??", "/*", "/a", "aab", "*a*"]
    static let pathPieces = ["/", "a", "b", "ab", "aa", "ba", "aab", "/a", "bab", "abab"]

    static func random(_ pieces: [String], count: Int, using generator: inout SeededGenerator) -> String {
        "/" + (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
    }

    /// Globs straight from pattern text (the bytes as written: no URL parsing here).
    static func glob(_ text: String) -> Glob {
        var tokens: [PathPattern.Token] = []
        var literal: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") {
                if !literal.isEmpty { tokens.append(.literal(literal)) }
                literal = []
                if byte == UInt8(ascii: "?") {
                    tokens.append(.anyOne)
                } else if tokens.last != .anyRun {
                    tokens.append(.anyRun)
                }
            } else {
                literal.append(byte)
            }
        }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        return Glob(tokens)
    }

    static func reported(_ automaton: PatternAutomaton, _ path: String) -> Set<Int32> {
        var found: Set<Int32> = []
        automaton.forEachMatch(in: Substring(path)) { found.insert($0) }
        // Paused after every match and resumed, the walk must find the same.
        var resumed: Set<Int32> = []
        var walk = PatternAutomaton.Walk(automaton, Substring(path))
        while walk.walk(automaton, { resumed.insert($0).inserted || true }) {}
        #expect(resumed == found, "\(path): paused and resumed")
        return found
    }

    static func expected(_ globs: [(owner: Int32, glob: Glob)], _ path: String) -> Set<Int32> {
        var path = path
        return path.withUTF8 { bytes in Set(globs.filter { $0.glob.matches(bytes) }.map(\.owner)) }
    }

    @Test("reports exactly the globs that match alone", arguments: 1...24)
    func agreesWithGlobs(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        var globs: [(owner: Int32, glob: Glob)] = []
        var texts: [String] = []
        while globs.count < 40 {
            var text = Self.random(Self.patternPieces, count: Int(generator.next() % 6), using: &generator)
            // Some patterns start with `*` or `?`, which paths from config never do, to cover the root group.
            if generator.next() % 8 == 0 { text = (generator.next() % 2 == 0 ? "*" : "?") + text }
            let glob = Self.glob(text)
            guard PatternAutomaton.isRegular(glob) else { continue }
            globs.append((Int32(globs.count), glob))
            texts.append(text)
        }
        let automaton = PatternAutomaton(globs)
        var matched = 0
        for _ in 0..<500 {
            let path =
                generator.next() % 20 == 0
                ? "" : Self.random(Self.pathPieces, count: Int(generator.next() % 10), using: &generator)
            let want = Self.expected(globs, path)
            let got = Self.reported(automaton, path)
            #expect(
                got == want,
                "seed \(seed): \(path): extra \(got.subtracting(want).map { texts[Int($0)] }), missing \(want.subtracting(got).map { texts[Int($0)] })"
            )
            matched += want.count
        }
        #expect(matched > 100, "seed \(seed): the generator must produce matches")
    }

    @Test("pieces that overlap the piece before wait for a later occurrence")
    func overlappingOccurrences() {
        let texts = ["/aba*aba", "/ab*ba*", "/a*a*a", "/aa*aa", "*aa*aa*", "/*??", "/??", "/a*??*b", "/", "/*", "*"]
        let globs = texts.enumerated().map { (Int32($0.offset), Self.glob($0.element)) }
        let automaton = PatternAutomaton(globs)
        for path in ["/aba", "/ababa", "/abababa", "/aba", "/aa", "/aaa", "/aaaa", "/aaaaa", "/ab", "/a", "/", "", "/abb"] {
            #expect(Self.reported(automaton, path) == Self.expected(globs, path), "\(path)")
        }
    }

    @Test("a path that starts more groups than are read in place files the rest one by one")
    func manyStartedGroups() {
        // Start words `/a`, `/aa`, … `/a×12`: the path `/aaaaaaaaaaaab…` starts all of them.
        var texts: [String] = []
        for depth in 1...12 {
            let start = "/" + String(repeating: "a", count: depth)
            texts += [start + "*b*", start + "*ab", start + "*", start + "*a*a*b*c", start + "b"]
        }
        #expect(texts.count / 5 > PatternAutomaton.groupsReadInPlace)
        let globs = texts.enumerated().map { (Int32($0.offset), Self.glob($0.element)) }
        let automaton = PatternAutomaton(globs)
        for path in ["/aaaaaaaaaaaaab", "/aaaaaaaaaaaaabc", "/aaaaab", "/aaaaaaaaaaaaaaaaab", "/aab", "/a"] {
            #expect(Self.reported(automaton, path) == Self.expected(globs, path), "\(path)")
        }
    }

    @Test("pieces that are suffixes of one another: skipping the ones nothing waits for loses no match")
    func suffixChains() {
        // `a` … `a×12` each alone, then again after a `b`, then as an end: cursors start, finish
        // and are filed again while the walk skips the pieces nothing waits for.
        var texts: [String] = []
        for k in 1...12 {
            let run = String(repeating: "a", count: k)
            texts += ["/*\(run)*z", "/*b*\(run)*c", "/*\(run)", "/*\(run)b*\(run)*"]
        }
        let globs = texts.enumerated().map { (Int32($0.offset), Self.glob($0.element)) }
        let automaton = PatternAutomaton(globs)
        let a = { (count: Int) in String(repeating: "a", count: count) }
        for path in [
            "/" + a(40), "/" + a(40) + "z", "/" + a(5) + "b" + a(20) + "c", "/" + a(3) + "b" + a(13), "/b" + a(12) + "c",
        ] {
            #expect(Self.reported(automaton, path) == Self.expected(globs, path), "\(path)")
        }
    }

    @Test("a piece mixing ? and bytes is not regular; ?-only and literal pieces are")
    func regularity() {
        #expect(!PatternAutomaton.isRegular(Self.glob("/v?/*")))
        #expect(PatternAutomaton.isRegular(Self.glob("/v/*??*/x")))
        #expect(PatternAutomaton.isRegular(Self.glob("/api/*")))
    }
}
