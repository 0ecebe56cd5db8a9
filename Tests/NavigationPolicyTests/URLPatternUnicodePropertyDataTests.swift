import Testing

/// WPT-style URLPattern entries for `\p{…}` and `\P{…}` (the vendored WPT data has none):
/// `Resources/urlpatterntestdata-unicode-properties.json` (provenance in `README-urlpattern.txt`),
/// run by ``URLPatternWPTTests``'s checks. Every entry must pass.
struct URLPatternUnicodePropertyDataTests {
    @Test func unicodePropertyData() throws {
        try URLPatternWPTTests.expectEveryEntryPasses(
            "urlpatterntestdata-unicode-properties.json", count: 28, label: "Unicode property data")
    }
}
