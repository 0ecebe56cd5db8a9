import Testing

@testable import NavigationPolicy

/// `methods: ["GET"]` covers HEAD: frameworks route HEAD to the GET handler, so a rule on GET
/// that HEAD walked past would be dodged by it.
@Suite("methods: GET covers HEAD")
struct MethodHeadTests {
    static let policy = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "get-admin", "type": "cancel", "action": "block", "match": {"methods": ["GET"], "paths": ["/admin"]}},
          {"name": "head-only", "type": "cancel", "action": "head", "match": {"methods": ["HEAD"], "paths": ["/h"]}}
        ]}
        """

    @Test("GET and HEAD match a GET entry; HEAD alone does not match GET")
    func headWithGet() throws {
        let policy = try compile(Self.policy)
        #expect(try decide(policy, "https://a.example/admin", method: "GET").handler == "get-admin")
        #expect(try decide(policy, "https://a.example/admin", method: "HEAD").handler == "get-admin")
        #expect(try decide(policy, "https://a.example/admin", method: "head").handler == "get-admin")
        #expect(try decide(policy, "https://a.example/admin", method: "POST").handler == nil)
        #expect(try decide(policy, "https://a.example/h", method: "GET").handler == nil)
        #expect(try decide(policy, "https://a.example/h", method: "HEAD").handler == "head-only")
    }

    @Test("explain says which entry held for HEAD")
    func explain() throws {
        let policy = try compile(Self.policy)
        let decision = try policy.decide(
            NavigationRequest(url: "https://a.example/admin", method: "HEAD"), explain: true)
        #expect(decision.trace?.first?.reason == #"matched: paths[0] "/admin" ~ "/admin", methods[0] "GET" ~ "HEAD""#)
        #expect(decision.trace?.first?.matched?.last == TraceStep.Match(field: .methods, index: 0, entry: "GET", value: "HEAD"))
    }
}
