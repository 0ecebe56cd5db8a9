import Testing

@testable import PolicyService

/// Outside attack 16, F3: `HTMLText.escape` walked `Character`s. A quote or `<` followed by a
/// combining mark is one `Character` equal to neither, so it went out unescaped (an HTML parser
/// ends a quoted attribute at that quote whatever follows), and a title that is one long run of
/// marks cost its square to compare, on every view of the page.
@Suite("HTML escaping by bytes")
struct HTMLTextTests {
    @Test("the five characters are escaped even when a combining mark follows them")
    func combinedSpecialsAreEscaped() {
        #expect(HTMLText.escape("\"\u{0301} onmouseover=x") == "&quot;\u{0301} onmouseover=x")
        #expect(HTMLText.escape("'\u{0323}") == "&#39;\u{0323}")
        #expect(HTMLText.escape("<\u{0338}script>") == "&lt;\u{0338}script&gt;")
        #expect(HTMLText.escape("&\u{20DD}amp;") == "&amp;\u{20DD}amp;")
    }

    @Test("everything else is kept byte for byte, non-ASCII and marks included")
    func otherTextIsKept() {
        let text = "Caf\u{00E9} e\u{0301} \u{1F600} \u{212A} " + String(repeating: "\u{0323}\u{0301}", count: 10_000)
        #expect(HTMLText.escape(text).utf8.elementsEqual(text.utf8))
        #expect(HTMLText.escape("a < b && c > \"d\" 'e'") == "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;")
    }
}
