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
        forEachField(of: decision, id: id, includeLocation: includeLocation) { name, value in
            headers.add(name: HTTPFieldName(name), value: value)
        }
    }

    /// What shadow-mode handlers would have decided, in chain order: `name=decision` items
    /// separated by `", "` (`beta-block=cancel, audit=allow`); absent when none matched.
    /// Handler names are restricted to `A-Z a-z 0-9 - _ .`, so neither separator can occur in one.
    public static let shadow = "X-Navigation-Shadow"

    /// `cancel` on a request a front end in dry run let through although the policy cancelled
    /// it (`extAuthz.dryRun`); absent otherwise.
    public static let dryRun = "X-Navigation-Dry-Run"
    /// ``dryRun`` as HTTP/2 and Envoy's header lists spell it.
    static let dryRunLowercase = dryRun.lowercased()

    /// Every field above: what a front end must remove from the client's request before the
    /// check, so that the app reads navpolicyd's fields only. The shipped Envoy bootstraps and
    /// Istio EnvoyFilter (deploy/) remove exactly these, by name (Envoy has no prefix removal).
    public static let all = [decision, handler, action, decisionID, location, shadow, dryRun]

    /// The decision headers as name/value pairs, in the order ``add(_:id:includeLocation:to:)``
    /// writes them, for transports that do not carry an ``HTTPHeaders`` (Envoy's gRPC `Check`).
    /// - Parameters:
    ///   - lowercase: names in lower case, as HTTP/2 and Envoy's header lists spell them.
    ///   - includeShadow: adds ``shadow`` when shadow handlers matched.
    static func forEachField(
        of decision: Decision, id: String, includeLocation: Bool, lowercase: Bool = false, includeShadow: Bool = false,
        _ body: (_ name: String, _ value: String) -> Void
    ) {
        let names = lowercase ? Names.lower : Names.canonical
        body(names.decision, decision.verdict.rawValue)
        if let handler = decision.handler { body(names.handler, handler) }
        if let action = decision.action { body(names.action, action) }
        body(names.decisionID, id)
        if includeLocation, let location = decision.location { body(names.location, location) }
        if includeShadow, let shadow = decision.shadow, !shadow.isEmpty {
            body(names.shadow, shadow.map { $0.handler + "=" + $0.verdict.rawValue }.joined(separator: ", "))
        }
    }

    /// The field names in one spelling, built once (not lowercased per request).
    private struct Names {
        var decision: String
        var handler: String
        var action: String
        var decisionID: String
        var location: String
        var shadow: String

        static let canonical = Names(
            decision: EnforcementHeaders.decision, handler: EnforcementHeaders.handler,
            action: EnforcementHeaders.action, decisionID: EnforcementHeaders.decisionID,
            location: EnforcementHeaders.location, shadow: EnforcementHeaders.shadow)
        static let lower = Names(
            decision: canonical.decision.lowercased(), handler: canonical.handler.lowercased(),
            action: canonical.action.lowercased(), decisionID: canonical.decisionID.lowercased(),
            location: canonical.location.lowercased(), shadow: canonical.shadow.lowercased())
    }
}
