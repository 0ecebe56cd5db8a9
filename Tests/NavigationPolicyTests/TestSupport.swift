import JSONSupport
import NavigationPolicy

/// A compiler told of the daemon's section names, each only checked to be an object: the core's
/// tests read configs written for the daemon, whose own validators PolicyServiceTests cover.
let frontEndCompiler = PolicyCompiler(
    sections: ["server", "intake", "proxy", "decisionLog", "extAuthz"].map { ConfigSection(name: $0) })

/// Compiles a config given as JSON text, failing the test with every issue if it is invalid.
func compile(_ json: String) throws -> CompiledPolicy {
    try frontEndCompiler.compile(Array(json.utf8))
}

/// The issues a config produces, as `pointer: message` strings.
func configIssues(_ json: String) -> [String] {
    compileIssues { () throws(ConfigError) in try frontEndCompiler.compile(Array(json.utf8)) }
}

/// The issues `compile` throws, as `pointer: message` strings (none when it compiles).
func compileIssues(_ compile: () throws(ConfigError) -> CompiledPolicy) -> [String] {
    do {
        _ = try compile()
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

/// Decides a URL with the other request fields at their defaults unless given.
func decide(
    _ policy: CompiledPolicy, _ url: String, method: String = "GET", navigationType: NavigationType = .other,
    targetFrame: TargetFrame = .main
) throws -> Decision {
    try policy.decide(NavigationRequest(url: url, method: method, navigationType: navigationType, targetFrame: targetFrame))
}

/// The default policy from the issue, used by bypass tests.
let defaultPolicyJSON = """
    {
      "defaultDecision": "allow",
      "handlers": [
        { "name": "logout",  "type": "logout", "match": { "paths": ["/logout", "/sign_out"] } },
        { "name": "about",   "type": "about",  "match": { "paths": ["/about"] } },
        { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example.com"] },
          "location": "https://checkout.example.com/open?target={url}" }
      ]
    }
    """
