import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns
@testable import URLStandard

/// `CanonicalRequest` looks for the encoded-separator readings, and scans the host for its match
/// form, only when the canonical `http(s)` scan did not take the URL (issue 41: that scan accepts
/// no `%2F`, `%5C` or `%2E` before the query and only a lower-case domain without a trailing dot). These hold the
/// skipped work to what the long way computes, on listed and random URLs, canonical or not.
@Suite("Canonical input: readings skipped only where none exists")
struct CanonicalInputReadingsTests {
    /// The host's match form and the decoded and raw-decoded readings, computed without asking
    /// the parser which path it took.
    static func longWay(_ url: String) throws -> (host: Substring?, decoded: MatchPath?, raw: MatchPath?) {
        let parsed = try URLRecord.parse(url)
        let matchPath = MatchPath(parsed)
        let decoded = MatchPath.decodedSeparatorForm(of: parsed)
        let raw = MatchPath.rawDecodedSeparatorForm(of: url, parsed: parsed)
        return (MatchHost.form(of: parsed), decoded, raw == decoded || raw == matchPath ? nil : raw)
    }

    /// Checks one URL; returns whether the canonical scan took it (nil when it does not parse).
    @discardableResult
    static func check(_ url: String) -> Bool? {
        guard let expected = try? longWay(url) else {
            #expect((try? URLRecord.parseNotingCanonicalInput(url)) == nil, "\(url) parses one way only")
            return nil
        }
        guard let noted = try? URLRecord.parseNotingCanonicalInput(url),
            let request = try? CanonicalRequest(NavigationRequest(url: url))
        else {
            Issue.record("\(url) parsed the long way but not here")
            return nil
        }
        #expect(noted.record == (try? URLRecord.parse(url)), "\(url): the same record")
        var copy = url
        let scanned = copy.withUTF8 { URLParser.parseCanonicalHTTP($0, original: url) } != nil
        #expect(noted.isCanonicalHTTP == scanned, "\(url): canonical exactly when the scan takes it")
        #expect(request.matchHostForm == expected.host, "\(url)")
        #expect(request.decodedSeparatorPath == expected.decoded, "\(url)")
        #expect(request.rawDecodedSeparatorPath == expected.raw, "\(url)")
        return noted.isCanonicalHTTP
    }

    @Test(
        "listed URLs: an encoded separator anywhere before the query is still read",
        arguments: [
            "https://app.example.com/home", "https://app.example.com/a/b?x=%2F#%5C", "https://app.example.com/a%2Fb",
            "https://app.example.com/public/x%2F../../secret/f.txt", "https://APP.example.com/x/..%2fsecret",
            "https://u%2Fx@app.example.com/a", "https://app.example.com/a%5cb?q", "http://h:8080/%2F",
            "https://h/a%2", "https://h/a/..%2F..%2F", "https://h/a\t%2F", "https://h/a%2\tF/../b", " https://h/%2F ",
            "foo://h%2Fx/a%2Fb", "foo:opaque%2F", "https://h/a;b%2F/", "https://h/%6Cogout", "https://h/a%2Fb%41",
            "https://h/%41/..%2F", "https://h/%7e%2f", "https://h/%5C%6C",
        ])
    func listed(url: String) {
        Self.check(url)
    }

    @Test("random URLs: host form and readings are the long way's, and canonical URLs take the scan")
    func random() {
        let prefixes = [
            "https://h", "https://h", "https://h", "http://a.b:8080", "http://a.b:8080", "http://a.b:8080",
            "https://APP.example.com", "https://u%2F@h", "foo://h", "https://h:443", "https://h.", "https://Pay.Example.com.",
            "http://10.0.0.1", "https://[::ffff:1.2.3.4]",
        ]
        // Mostly plain pieces, so that many URLs are canonical; one in eight from the tricky ones.
        let plain = ["/", "/", "a", "b", "x-y", "=", "~", ";x", "?", "#"]
        let tricky = [
            "%2F", "%2f", "%5C", "%5c", "%2", "%41", "%2e", ".", "..", "\\", "\t", "//", "A", "%6C", "%7e", "%20", "%zz",
        ]
        var state: UInt64 = 0x5EED_2F5C
        var canonical = 0
        var scanned = 0
        for _ in 0..<3_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var url = prefixes[Int(state >> 33) % prefixes.count] + "/"
            for _ in 0...Int(state >> 61) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let pieces = (state >> 32) & 7 == 0 ? tricky : plain
                url += pieces[Int(state >> 35) % pieces.count]
            }
            if let took = Self.check(url) {
                scanned += 1
                if took { canonical += 1 }
            }
        }
        // Both kinds must be exercised: URLs the scan takes and URLs it leaves to the state machine.
        #expect(canonical > 300, "\(canonical) of \(scanned) canonical")
        #expect(scanned - canonical > 300, "\(scanned - canonical) of \(scanned) not canonical")
    }
}
