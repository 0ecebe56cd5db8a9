public import HTTPServer
public import NavigationPolicy

/// The `X-Navigation-*` response headers every enforcement mode (nginx `auth_request`,
/// forward and reverse proxy) uses to report a decision, so that clients, nginx and logs
/// read one vocabulary whatever the mode.
public enum EnforcementHeaders {
    /// `allow` or `cancel`.
    public static let decision = "X-Navigation-Decision"
    /// The handler that decided; absent when the default decision applied.
    public static let handler = "X-Navigation-Handler"
    /// The native action of a cancel (`logout`, `block`, …); absent for allow.
    public static let action = "X-Navigation-Action"
    /// The decision's identifier, the same one the decision log records.
    public static let decisionID = "X-Navigation-Decision-Id"
    /// Where the user should go instead (payment redirects); absent when none.
    public static let location = "X-Navigation-Location"

    /// Adds the decision headers; `includeLocation` adds `X-Navigation-Location` (the proxy
    /// sends a real `Location` with a 302 instead).
    public static func add(
        _ decision: Decision, id: String, includeLocation: Bool, to headers: inout HTTPHeaders
    ) {
        headers.add(name: Self.decision, value: decision.verdict.rawValue)
        if let handler = decision.handler { headers.add(name: Self.handler, value: handler) }
        if let action = decision.action { headers.add(name: Self.action, value: action) }
        headers.add(name: decisionID, value: id)
        if includeLocation, let location = decision.location { headers.add(name: Self.location, value: location) }
    }
}
