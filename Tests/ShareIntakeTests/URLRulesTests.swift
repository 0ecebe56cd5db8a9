import Testing

@testable import ShareIntake

@Suite("Web URLs and free text")
struct URLRulesTests {
    func kind(_ text: String) -> IntakeFailure.Kind? {
        do {
            _ = try WebURL(validating: text)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test("http and https after WHATWG parsing; canonical form without fragment")
    func accepted() throws {
        let url = try WebURL(validating: "HTTPS://EXAMPLE.com:443/a#x")
        #expect(url.href == "https://example.com/a#x")
        #expect(url.deduplicationKey == "https://example.com/a")
        #expect(url.original == "HTTPS://EXAMPLE.com:443/a#x")
        #expect(try WebURL(validating: "http://EXAMPLE.com").deduplicationKey == "http://example.com/")
        #expect(try WebURL(validating: "https://a.example/?q=1#f").deduplicationKey == "https://a.example/?q=1")
        #expect(try WebURL(validating: "https://bücher.example/").href == "https://xn--bcher-kva.example/")
    }

    @Test("other schemes, userinfo, length and whitespace are refused")
    func refused() {
        for text in [
            "javascript:alert(1)", "data:text/html,x", "itms-apps://x", "file:///var/x", "ftp://a/", "blob:https://a/x",
            "about:blank",
        ] {
            #expect(kind(text) == .schemeNotAllowed, "\(text)")
        }
        #expect(kind("https://user:pw@e.com/") == .invalidURL)
        #expect(kind("https://user@e.com/") == .invalidURL)
        #expect(kind("https://a.example/" + String(repeating: "a", count: 8_200)) == .invalidURL)
        #expect(kind("https://a.example/a b") == .invalidURL)
        #expect(kind("https://a.exa\nmple/") == .invalidURL)
        #expect(kind("https://[::1") == .invalidURL)
        #expect(kind("not a url") == .invalidURL)
    }

    @Test("free text: first http(s) token, trailing punctuation stripped unless balanced")
    func freeText() {
        let cases: [(String, String?)] = [
            ("Look at this https://example.com/a.", "https://example.com/a"),
            ("Source: Collider (https://collider.com/x)", "https://collider.com/x"),
            ("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)"),
            ("(see https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)"),
            ("a HTTPS://A.example/x?!, b https://b.example/", "HTTPS://A.example/x"),
            ("\"https://q.example/\"", "https://q.example/"),
            ("<https://q.example/a>", "https://q.example/a"),
            ("wow https://q.example/…", "https://q.example/"),
            ("x https://q.example/[1]]", "https://q.example/[1]"),
            ("it's 'https://q.example/'", "https://q.example/"),
            ("ftp://a.example/ only", nil),
            ("https:// nothing", nil),
            ("", nil),
        ]
        for (text, expected) in cases {
            #expect(FreeTextURL.first(in: text) == expected, "\(text)")
        }
    }
}
