import HTTPServer
import NavigationPolicy

extension ListenerKind {
    /// Envoy's ext_authz HTTP service (docs/envoy.md): an ``HTTPServer`` running the
    /// ``ExtAuthzHTTPResponder``, at `extAuthz.listen` or `--ext-authz-listen`. It brings the
    /// `extAuthz` section, which the gRPC `Check` listener reads too.
    static let extAuthz = ListenerKind(
        role: "ext-authz",
        flag: ListenFlag(
            "ext-authz-listen",
            help: "also run Envoy's ext_authz HTTP service there: every path is a request to decide (docs/envoy.md)"),
        clashName: "ext-authz listen", configured: { ExtAuthzSettings.from($0.policy).listen }, sections: [.extAuthz]
    ) { context in
        let check = ExtAuthzCheck(
            decisions: context.services.decisions(for: .extAuthzHTTP), settings: context.extAuthz)
        // Envoy sends no body unless with_request_body is set, and none is read: a body is
        // refused (413) rather than buffered for nothing.
        let configuration = context.serverConfiguration(maxBodyBytes: 0)
        let metrics = context.services.metrics
        let countRejected = ListenerContext.countingRejected(metrics)
        return context.listener(
            ExtAuthzHTTPResponder(check: check), configuration: configuration, logLabel: "ext-authz",
            listeningEvent: "ext_authz.listening",
            countRejected: { status in
                countRejected(status)
                // Every request here is a check Envoy asked; one the HTTP layer refused (413 for a
                // body, 501 for a transfer coding, 414, 431, framing 400s) was not decided: it is an
                // `invalid` check, as a 400 from the responder is (attack round 8, F6).
                metrics.extAuthz.record(.http, .invalid)
            })
    }
}

extension DaemonSection {
    /// `extAuthz`: both ext_authz services' addresses and the HTTP service's path prefix, built
    /// once at start; the gRPC listener's kind reads it too.
    static let extAuthz = DaemonSection(
        "extAuthz", as: ExtAuthzSettings.self,
        restartWarning: restartOnly("extAuthz", event: "policy.ext_authz_settings_changed"))
}
