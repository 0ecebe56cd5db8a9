import JSONSupport
import Testing

@testable import PolicyService

/// Issue 38, item 6: the userinfo password is always redacted, and names are compared as the
/// common server stacks read them (PHP's `.`, space and `[` as `_`, a NUL ending the name).
@Suite("decision log redaction: passwords and names as servers read them")
struct QueryRedactionServerReadingTests {
    @Test("a userinfo password is replaced with no names configured, in every spelling the URL parser reads")
    func passwords() {
        let none = QueryRedaction(names: [])
        let cases: [(String, String)] = [
            ("https://user:secret@host.example/", "https://user:REDACTED@host.example/"),
            ("https://user:secret@host.example", "https://user:REDACTED@host.example"),
            ("https://:secret@host.example/p?q=1", "https://:REDACTED@host.example/p?q=1"),
            ("HTTPS:\\\\user:secret@host.example/", "HTTPS:\\\\user:REDACTED@host.example/"),
            ("https:user:secret@host.example/", "https:user:REDACTED@host.example/"),
            ("https:///user:secret@host.example/", "https:///user:REDACTED@host.example/"),
            ("  https://user:secret@host.example/", "  https://user:REDACTED@host.example/"),
            ("https://user:se:cr@et@host.example/", "https://user:REDACTED@host.example/"),
            ("ftp://user:p%40ss@files.example/", "ftp://user:REDACTED@files.example/"),
            ("foo://user:secret@host.example/x", "foo://user:REDACTED@host.example/x"),
            ("ht\ttps://user:secret@host.example/", "ht\ttps://user:REDACTED@host.example/"),
        ]
        for (url, expected) in cases {
            #expect(none.redact(url) == expected, "\(url.debugDescription)")
            var writer = JSONWriter()
            #expect(none.write(url, into: &writer), "\(url.debugDescription)")
        }
        for url in [
            "https://user@host.example/", "https://host.example/p?u=a:b@c", "https://host.example/a:b@c",
            "https://user:@host.example/", "https://user:REDACTED@host.example/",
        ] {
            #expect(none.redact(url) == nil, "\(url)")
        }
        #expect(none.isEmpty, "no names: parameters are not scanned")
        #expect(QueryRedaction(names: ["*"]).redact("https://u:pw@h.example/?a=1") == "https://u:REDACTED@h.example/?a=REDACTED")
    }

    @Test("names PHP, Rack, ASP.NET and form decoding read as a listed name are redacted")
    func serverReadings() {
        let rule = QueryRedaction(names: ["access_token"])
        for name in [
            "access_token", "access.token", "access+token", "access%20token", "access%2Etoken", "access%2etoken",
            "access[token", "access%5Btoken", "ACCESS.Token", "+access.token", "access_token%00junk", "access_token[]",
            "access_token[a][b]", "access%252Etoken",
            // IIS/ASP.NET: %u escapes and OrdinalIgnoreCase (round 4's outside attack, F4).
            "%u0061ccess_token", "access%U005Ftoken", "acce%C5%BFs_token", "%u0041CCESS_TOKEN",
        ] {
            #expect(
                rule.redact("https://a.example/?\(name)=SECRET&x=1") == "https://a.example/?\(name)=REDACTED&x=1",
                "\(name)")
        }
        for name in ["accesstoken", "access__token", "access-token", "xaccess_token", "access[token]"] {
            #expect(rule.redact("https://a.example/?\(name)=SECRET") == nil, "\(name)")
        }
        // A listed name with a dot means the same parameter to PHP.
        #expect(
            QueryRedaction(names: ["user.email"]).redact("https://a.example/?user_email=x")
                == "https://a.example/?user_email=REDACTED")
        #expect(QueryRedaction.normalizedName(Array("Access.Token ".utf8)[...]) == "access_token")
        #expect(QueryRedaction.normalizedName(Array("a[b".utf8)[...]) == "a_b")
        #expect(QueryRedaction.normalizedName(Array("a[b]".utf8)[...]) == "a")
    }
}
