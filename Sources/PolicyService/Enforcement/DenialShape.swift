import NavigationPolicy

/// How a cancel is answered over HTTP, the one rule every front end that answers HTTP applies
/// (ext_authz HTTP and gRPC, `/v1/authz`, the proxies): 302 to the decision's location when it
/// has one, else the deciding handler's `response.status`, else 403; the handler's
/// `response.headers` beside navpolicyd's own fields (docs/configuration.md, "Shaping a denial").
enum DenialShape {
    /// The status a front end answers `decision` (a cancel) with.
    static func status(of decision: Decision) -> Int {
        if decision.location != nil { return 302 }
        return decision.response?.status ?? 403
    }

    /// Calls `body` with each of the handler's own response fields (lower-case names).
    static func forEachField(of decision: Decision, _ body: (_ name: String, _ value: String) -> Void) {
        guard let response = decision.response else { return }
        for field in response.headers { body(field.name, field.value) }
    }
}
