import NavigationPolicy
import Testing

@testable import PolicyService

/// The proxy's rule for internal destinations (issue 26 item 1), without sockets: which
/// addresses are refused, which pins exempt what, and how the config turns it off.
@Suite("proxy: internal destinations rule")
struct InternalDestinationsTests {
    private func settings(_ proxySection: String) throws(ConfigError) -> ProxySettings {
        let document = #"{"handlers": [], "proxy": \#(proxySection)}"#
        return ProxySettings.from(try ServerSettings.compiler.compile(Array(document.utf8)))
    }

    private func address(_ text: String) throws -> IPAddress {
        try #require(InternalDestinations.numericAddress(text), "\(text)")
    }

    @Test("every internal class is refused, public addresses are admitted, IPv4-mapped and NAT64 count as IPv4")
    func classes() throws {
        let rule = try #require(InternalDestinations(settings("{}")))
        let refused = [
            "127.0.0.1", "127.1.2.3", "0.0.0.0", "::", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "10.1.2.3",
            "172.16.0.1", "192.168.1.1", "100.64.0.1", "169.254.169.254", "fc00::1", "fd12::1", "fe80::1",
            "::ffff:169.254.169.254",
        ]
        for text in refused {
            #expect(!rule.admits(try address(text), port: 80, url: "http://example.com/"), "\(text)")
        }
        for text in ["93.184.216.34", "1.1.1.1", "2606:4700::1111", "172.32.0.1", "100.128.0.1", "::ffff:8.8.8.8"] {
            #expect(rule.admits(try address(text), port: 80, url: "http://example.com/"), "\(text)")
        }
    }

    @Test("a proxy.resolve pin exempts exactly its host:port connecting to exactly its address and port")
    func pins() throws {
        let rule = try #require(
            InternalDestinations(settings(#"{"resolve": {"App.Test:8080": "127.0.0.1", "v6.test:80": "[::1]"}}"#)))
        let loopback = try address("127.0.0.1")
        #expect(rule.admits(loopback, port: 8080, url: "http://app.test:8080/x"))
        #expect(rule.admits(loopback, port: 8080, url: "HTTP://APP.TEST:8080/x"), "host case does not matter")
        #expect(rule.admits(try address("::1"), port: 80, url: "http://v6.test/"), "default port")
        #expect(!rule.admits(loopback, port: 8080, url: "http://127.0.0.1:8080/x"), "the address under another name")
        #expect(!rule.admits(loopback, port: 8080, url: "http://localhost:8080/x"))
        #expect(!rule.admits(loopback, port: 9090, url: "http://app.test:8080/x"), "another port than the pin's")
        #expect(!rule.admits(try address("127.0.0.2"), port: 8080, url: "http://app.test:8080/x"), "another address")
        #expect(!rule.admits(loopback, port: 8080, url: "http://app.test:8081/x"), "another host:port")
        #expect(!rule.admits(loopback, port: 8080, url: "not a url"))
    }

    @Test("reverse mode: every URL under proxy.upstream is exempt, nothing else is")
    func upstream() throws {
        let section = #"{"upstream": "http://127.0.0.1:3000/", "publicOrigin": "https://app.example.com"}"#
        let rule = try #require(InternalDestinations(settings(section)))
        let loopback = try address("127.0.0.1")
        #expect(rule.admits(loopback, port: 3000, url: "http://127.0.0.1:3000/a?b"))
        #expect(!rule.admits(loopback, port: 3000, url: "http://127.0.0.1:30000/a"))
    }

    @Test("allowInternalDestinations: true turns the rule off; it is a boolean, checked at its pointer")
    func configuration() throws {
        #expect(try settings("{}").allowInternalDestinations == false)
        #expect(InternalDestinations(try settings(#"{"allowInternalDestinations": true}"#)) == nil)
        #expect(InternalDestinations.destinationGuard(for: try settings(#"{"allowInternalDestinations": true}"#)) == nil)
        #expect(throws: ConfigError.self) { try settings(#"{"allowInternalDestinations": "yes"}"#) }
        do {
            _ = try settings(#"{"allowInternalDestinations": 1}"#)
            Issue.record("a number compiled as allowInternalDestinations")
        } catch {
            #expect(error.issues.map(\.pointer.description) == ["/proxy/allowInternalDestinations"])
        }
    }

    @Test("pins are read as libcurl reads CURLOPT_RESOLVE addresses: numeric only")
    func numericAddresses() {
        #expect(InternalDestinations.numericAddress("127.0.0.1")?.description == "127.0.0.1")
        #expect(InternalDestinations.numericAddress("[::1]")?.description == "::1")
        #expect(InternalDestinations.numericAddress("::1")?.description == "::1")
        for loose in ["127.1", "0x7f.0.0.1", "localhost", "", "[127.0.0.1]x", "1.2.3.4.5"] {
            #expect(InternalDestinations.numericAddress(loose) == nil, "\(loose)")
        }
    }
}
