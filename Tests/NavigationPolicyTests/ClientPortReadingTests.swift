import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// A URL whose port the client chose (``NavigationRequest/urlWithoutClientPort``) is decided
/// with and without it, the cancel winning; the `urlPatternDefaultPortOnly` lint (issue 38, item 2).
@Suite("client-chosen ports: two readings")
struct ClientPortReadingTests {
    static let config = """
        {"defaultDecision": "allow", "extAuthz": {}, "handlers": [
          {"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin{/*}?"]}},
          {"name": "pinned", "type": "cancel", "match": {"urlPatterns": ["https://app.example.com:8443/pinned"]}},
          {"name": "listed", "type": "allow", "match": {"urlPatterns": ["https://allow.example.com/*"]}},
          {"name": "rest", "type": "cancel", "match": {"hosts": ["allow.example.com"]}}
        ]}
        """

    func decide(_ policy: CompiledPolicy, _ url: String, without portless: String?) throws -> Decision {
        var request = NavigationRequest(url: url)
        request.urlWithoutClientPort = portless
        return try policy.decide(request)
    }

    @Test("a cancel written for the default port holds on the port the client names, and one pinned to that port too")
    func cancelWins() throws {
        let policy = try compile(Self.config)
        // The standard reading alone: the empty port does not match 8443.
        #expect(try decide(policy, "https://app.example.com:8443/admin", without: nil).verdict == .allow)
        let both = try decide(policy, "https://app.example.com:8443/admin", without: "https://app.example.com/admin")
        #expect(both.verdict == .cancel && both.handler == "admin")
        #expect(both.url == "https://app.example.com/admin", "the reading that cancels reports its URL")
        let pinned = try decide(policy, "https://app.example.com:8443/pinned", without: "https://app.example.com/pinned")
        #expect(pinned.verdict == .cancel && pinned.handler == "pinned")
        #expect(pinned.url == "https://app.example.com:8443/pinned")
        // The indexed chain and the linear reference agree.
        var request = NavigationRequest(url: "https://app.example.com:8443/admin/x")
        request.urlWithoutClientPort = "https://app.example.com/admin/x"
        #expect(policy.decideLinearAllReadings(try CanonicalRequest(request)).handler == "admin")
    }

    @Test("an allow needs both readings: an allow-list never admits more for a port the client adds")
    func allowListStaysClosed() throws {
        let policy = try compile(Self.config)
        #expect(try decide(policy, "https://allow.example.com/x", without: nil).handler == "listed")
        let ported = try decide(policy, "https://allow.example.com:8443/x", without: "https://allow.example.com/x")
        #expect(ported.verdict == .cancel && ported.handler == "rest")
    }

    @Test("a port-free reading that does not parse is refused, never skipped")
    func unparsableReading() throws {
        let policy = try compile(Self.config)
        #expect(throws: NavigationRequestError.self) {
            try decide(policy, "https://app.example.com:8443/admin", without: "https://exa mple.com:x/admin")
        }
    }

    @Test("lint: each urlPatterns entry pinning the empty port warns when the config has an extAuthz section")
    func lint() throws {
        let warnings = PolicyLint.warnings(try compile(Self.config)).filter { $0.kind == "urlPatternDefaultPortOnly" }
        #expect(warnings.map(\.pointer.description) == ["/handlers/0/match/urlPatterns/0", "/handlers/2/match/urlPatterns/0"])
        #expect(warnings.first?.message.contains(#"write ":*" after the host"#) == true)
        // Without the section, or with a port (":*" included) or an object without one: nothing.
        let plain = try compile(Self.config.replacingOccurrences(of: #""extAuthz": {}, "#, with: ""))
        #expect(PolicyLint.warnings(plain).allSatisfy { $0.kind != "urlPatternDefaultPortOnly" })
        let ported = try compile(
            #"{"extAuthz": {}, "handlers": [{"name": "a", "type": "cancel", "match": {"urlPatterns": "#
                + #"["https://*.example.com:*/admin", {"hostname": "a.example", "pathname": "/x"}]}}]}"#)
        #expect(PolicyLint.warnings(ported).allSatisfy { $0.kind != "urlPatternDefaultPortOnly" })
    }
}
