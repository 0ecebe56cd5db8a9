import Testing

@testable import PolicyService

/// The host+port normalisation every header-derived front end shares (issue 38, item 2).
@Suite("client authority: the port-free reading")
struct ClientAuthorityTests {
    @Test(
        "the port comes out of the authority, whatever surrounds it",
        arguments: [
            ("https://app.example.com:8443/admin?x=1", "https://app.example.com/admin?x=1"),
            ("https://u:p@app.example.com:8443/admin", "https://u:p@app.example.com/admin"),
            ("http://[::1]:8080/x", "http://[::1]/x"),
            ("https://app.example.com:8443", "https://app.example.com"),
            ("https://app.example.com:84\t43/a", "https://app.example.com/a"),
        ])
    func removesThePort(url: String, expected: String) throws {
        let navigation = try ClientAuthority.navigation(url: url, method: "GET", field: "host")
        #expect(navigation.url == url)
        #expect(navigation.urlWithoutClientPort == expected)
    }

    @Test("no port, the default port, or a URL that does not parse: no second reading")
    func nothingToRemove() throws {
        for url in ["https://app.example.com/a", "https://app.example.com:443/a", "http://app.example.com:80/", "https://a b/"] {
            #expect(try ClientAuthority.navigation(url: url, method: "GET", field: "host").urlWithoutClientPort == nil, "\(url)")
        }
    }

    @Test("a port the text cannot give up as the parser reads it: 400, never one reading")
    func refused() {
        // A special scheme's authority needs no "//" to the parser ("https:/a:1/" is https://a:1/).
        for url in ["https:/app.example.com:8443/admin", "https:\\\\app.example.com:8443/admin"] {
            #expect(throws: ServiceProblem.self, "\(url)") {
                _ = try ClientAuthority.navigation(url: url, method: "GET", field: "host")
            }
        }
    }

    @Test("host fields: no byte that ends the authority or starts userinfo")
    func hostField() {
        #expect(ClientAuthority.isHostField("app.example.com:8443"))
        for bad in ["a/b", "a?b", "a#b", "u@a", "a\\b", "a b", "a\tb"] { #expect(!ClientAuthority.isHostField(bad), "\(bad)") }
    }
}
