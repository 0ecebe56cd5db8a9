import Testing

@testable import ShareIntake

/// Outside attack 16, F1: a free-text URL's trailing brackets were stripped one at a time, each
/// strip counting every bracket of the token again, so a token ending in 64 KiB of `)` cost 2 s
/// and a 256 KiB share 33 s. The brackets are now counted once; these hold the one pass to the
/// rule it replaced.
@Suite("free text: trailing punctuation stripped in one pass")
struct FreeTextTrimTests {
    /// The rule as it was written before, one recount per stripped scalar: the reference.
    static func strippedByRecounting(_ token: String) -> String {
        let closers: [Unicode.Scalar: Unicode.Scalar] = [")": "(", "]": "[", "}": "{"]
        let punctuation = Set(".,;:!?)]}'\"\u{2026}".unicodeScalars)
        var scalars = Array(token.unicodeScalars)
        while let last = scalars.last, punctuation.contains(last) {
            if let opener = closers[last] {
                guard scalars.count(where: { $0 == last }) > scalars.count(where: { $0 == opener }) else { break }
            }
            scalars.removeLast()
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    @Test("20,000 random tokens of brackets and punctuation: the same URL as the recounting rule")
    func onePassStripsWhatTheRecountStripped() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["(", ")", "[", "]", "{", "}", ".", ",", "!", "?", "'", "\u{2026}", "a", "/", "_"]
        for _ in 0..<20_000 {
            let tail = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            let token = "https://a.example/" + tail.joined()
            #expect(FreeTextURL.first(in: "see " + token + " now") == Self.strippedByRecounting(token), "\(token)")
        }
    }

    @Test("a token ending in 60,000 closing brackets keeps only those an opener balances")
    func longBracketRunsAreStrippedToTheBalancedOnes() {
        let balanced = "https://a.example/x_(y)_[z]"
        #expect(FreeTextURL.first(in: balanced + String(repeating: ")]}", count: 20_000) + ".") == balanced)
        #expect(
            FreeTextURL.first(in: "https://a.example/((((" + String(repeating: ")", count: 60_000))
                == "https://a.example/(((())))")
    }

    @Test("a scheme alone is still no URL, in any case, and a long token is not compared as one")
    func schemeAloneIsNoURL() {
        #expect(FreeTextURL.first(in: "go to HTTPS:// now") == nil)
        #expect(FreeTextURL.first(in: "http://).") == nil)
        let marks = String(repeating: "\u{0323}\u{0301}", count: 20_000)
        #expect(FreeTextURL.first(in: "https://a.example/" + marks)?.utf8.count == 18 + marks.utf8.count)
    }
}
