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
