import Testing

@testable import PolicyService

/// Issue 38, F9: a tunnel host with an empty label is invalid, not decided: WHATWG keeps
/// `blocked.test..` as it is, and no rule naming `blocked.test` matched it.
@Suite("Tunnel hosts: one trailing dot tolerated, empty labels refused (CONNECT and SNI)")
struct TunnelHostTests {
    @Test("hosts with an empty label are no tunnel host; one trailing dot is dropped")
    func emptyLabels() {
        for host in ["blocked.test..", "a..b", ".b", "..", ".", "", "b...", ".b."] {
            #expect(ConnectTunnels.tunnelHost(host) == nil, "\(host)")
        }
        #expect(ConnectTunnels.tunnelHost("blocked.test.") == "blocked.test")
        #expect(ConnectTunnels.tunnelHost("allowed.test") == "allowed.test")
        #expect(ConnectTunnels.tunnelHost("[::1]") == "[::1]")
    }

    @Test("a server name with an empty label never matches, not even the same spelling")
    func serverNames() {
        #expect(ConnectTunnels.serverNameMismatch("allowed.test.", host: "allowed.test", isAddress: false) == nil)
        #expect(ConnectTunnels.serverNameMismatch("ALLOWED.test", host: "allowed.test", isAddress: false) == nil)
        for name in ["allowed.test..", "allowed..test", ".allowed.test"] {
            #expect(ConnectTunnels.serverNameMismatch(name, host: "allowed.test", isAddress: false) != nil, "\(name)")
        }
        #expect(ConnectTunnels.serverNameMismatch("a..b", host: "a..b", isAddress: false) != nil)
    }
}

/// Outside attack 16, F5: a `CONNECT` target's `host:port` was read as `Character`s, where a
/// `/` or `:` followed by a combining mark is neither, and a host of marks cost its square.
@Suite("CONNECT targets read by bytes")
struct ConnectAuthorityTests {
    @Test("host:port and [IPv6]:port are read; a refused byte is refused even with a mark after it")
    func authorityByBytes() {
        for (target, host, port) in [
            ("example.com:443", "example.com", 443), ("[::1]:8443", "[::1]", 8443),
            ("caf\u{00E9}.example:443", "caf\u{00E9}.example", 443),
        ] {
            let read = ConnectTunnels.authority(target)
            #expect(read?.host == host && read?.port == port, "\(target)")
        }
        for target in [
            "a.example/\u{0301}x:443", "a\u{0301}@b.example:443", "a.example:443\u{0301}", "a.example:\u{0301}443",
            "::1:443", "[::1:443", "a.example:0", "a.example:65536", "a.example", ":443", "a b.example:443",
        ] {
            #expect(ConnectTunnels.authority(target) == nil, "\(target)")
        }
        let marks = String(repeating: "\u{0323}\u{0301}", count: 3_000)
        #expect(ConnectTunnels.authority("a" + marks + ".example:443")?.host == "a" + marks + ".example")
    }
}
