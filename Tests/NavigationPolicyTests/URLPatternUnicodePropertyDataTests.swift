import Testing

/// WPT-style URLPattern entries for `\p{…}` and `\P{…}` (the vendored WPT data has none):
/// `Resources/urlpatterntestdata-unicode-properties.json` (provenance in `README-urlpattern.txt`),
/// run by ``URLPatternWPTTests``'s checks. Every entry must pass.
struct URLPatternUnicodePropertyDataTests {
    @Test func unicodePropertyData() throws {
        let outcome = try URLPatternWPTTests.run("urlpatterntestdata-unicode-properties.json")
        print("URLPattern Unicode property data: \(outcome.passed.count) / \(outcome.passed.count + outcome.failures.count) pass")
        for (index, failure) in outcome.failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("unicode-properties entry \(index): \(failure)")
        }
        #expect(outcome.passed.count == 28)
    }
}
