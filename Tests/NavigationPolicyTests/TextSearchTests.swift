import PolicyHarness
import Testing

@testable import PolicyPatterns

/// The core's text search (`PolicyPatterns/TextSearch.swift`) stands in for `_StringProcessing`,
/// which Embedded Swift lacks, at every site the WebAssembly build compiles: the daemon's answers
/// there are `_StringProcessing`'s, so the helpers must give the same on every text.
@Suite("Text search: the answers of _StringProcessing, without it")
struct TextSearchTests {
    /// What texts and needles are joined from: ASCII needles next to a combining mark (no match
    /// by Character), canonically equivalent spellings of é (a match), CR LF (one Character).
    static let pieces = ["~", "/", ".", "*", "%00", "?", "e", "\u{301}", "é", "e\u{301}", "\r", "\n", "\r\n", "x", "ü"]

    static func joined(_ count: Int, _ rng: inout HarnessRandom) -> String {
        (0..<count).map { _ in pieces[Int.random(in: pieces.indices, using: &rng)] }.joined()
    }

    /// `_StringProcessing`'s `contains(_:)`, the one the core's files called: through a generic
    /// `Collection`, because this test module also sees Foundation's `StringProtocol.contains`
    /// (another file imports Foundation), which compares UTF-16 units (it finds "\r" inside
    /// "\r\n") and which no core module, importing no Foundation, ever called.
    static func containsByCharacter<Text: Collection>(_ text: Text, _ other: String) -> Bool where Text.Element == Character {
        text.contains(other)
    }

    @Test("contains, replacing and split agree with _StringProcessing on random texts", arguments: 0..<4)
    func agreesWithStringProcessing(seed: UInt64) {
        var rng = HarnessRandom(state: 0x7E57 &+ seed)
        for _ in 0..<2_000 {
            let text = Self.joined(Int.random(in: 0...9, using: &rng), &rng)
            let needle = Self.joined(Int.random(in: 1...3, using: &rng), &rng)
            let slice = text.dropFirst(Int.random(in: 0...2, using: &rng))
            let shown = "\(text.debugDescription) \(needle.debugDescription)"
            #expect(text.contains(substring: needle) == Self.containsByCharacter(text, needle), "\(shown)")
            #expect(
                slice.contains(substring: needle) == Self.containsByCharacter(slice, needle), "\(slice.debugDescription) \(shown)"
            )
            #expect(
                text.replacing(every: needle, with: "<>") == text.replacing(needle, with: "<>"), "\(shown)")
            #expect(
                text.split(atEvery: needle).map(String.init)
                    == text.split(separator: needle, omittingEmptySubsequences: false).map(String.init), "\(shown)")
        }
    }

    @Test("Characters are compared, not bytes: what the JSON pointers and path patterns rely on")
    func charactersNotBytes() {
        // `~` followed by a combining mark is another Character: left as it is, as before.
        #expect("a~\u{301}/b".replacing(every: "~", with: "~0").replacing(every: "/", with: "~1") == "a~\u{301}~1b")
        #expect("/x/é".contains(substring: "e\u{301}"))
        #expect(!"/x/e\u{301}".contains(substring: "/x/e"))
        #expect("a%00b%00".split(atEvery: "%00") == ["a", "b", ""])
        #expect("".split(atEvery: "x") == [""])
        #expect("abc".contains(substring: ""))
    }
}
