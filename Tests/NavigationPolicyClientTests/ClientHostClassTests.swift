import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

/// Bundles carry `hosts` entries verbatim, so the in-app client decides ranges, classes and
/// `GET`-covers-`HEAD` exactly as the daemon does.
@Suite("Client: host ranges and classes")
struct ClientHostClassTests {
    static let policy = """
        {"defaultDecision":"allow","handlers":[\
        {"name":"internal","type":"cancel","action":"block","match":{"hosts":["@loopback","10.0.0.0/8","fd00::/8"]}},\
        {"name":"get-admin","type":"cancel","action":"block","match":{"methods":["GET"],"paths":["/admin"]}}]}
        """

    @Test func aBundleWithClassesAndRangesDecidesLikeTheEngine() throws {
        let client = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes(policy: Self.policy))))
        #expect(client.startupIssues.isEmpty)
        for url in [
            "http://0.0.0.0/", "http://0/", "http://[::]/", "http://foo.localhost/", "http://127.1.2.3/",
            "http://localhost./", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "http://2130706433/",
            "http://10.20.30.40/", "http://[fd00::1]/",
        ] {
            let decision = client.decide(NavigationRequest(url: url))
            #expect(decision.verdict == .cancel && decision.handler == "internal", "\(url)")
        }
        #expect(client.decide(NavigationRequest(url: "https://app.example.com/")).verdict == .allow)
        #expect(client.decide(NavigationRequest(url: "http://11.0.0.1/")).verdict == .allow)
        let head = client.decide(NavigationRequest(url: "https://app.example.com/admin", method: "HEAD"))
        #expect(head.handler == "get-admin")
    }
}
