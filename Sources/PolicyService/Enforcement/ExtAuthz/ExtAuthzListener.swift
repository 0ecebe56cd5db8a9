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
            decisions: context.services.decisions(for: .extAuthz), settings: context.extAuthz, frontend: "ext_authz_http")
        // Envoy sends no body unless with_request_body is set, and none is read: a body is
        // refused (413) rather than buffered for nothing.
        let configuration = context.serverConfiguration(maxBodyBytes: 0)
        return context.listener(
            ExtAuthzHTTPResponder(check: check), configuration: configuration, logLabel: "ext-authz",
            listeningEvent: "ext_authz.listening")
    }
}

extension DaemonSection {
    /// `extAuthz`: both ext_authz services' addresses and the HTTP service's path prefix, built
    /// once at start; the gRPC listener's kind reads it too.
    static let extAuthz = DaemonSection(
        "extAuthz", as: ExtAuthzSettings.self,
        restartWarning: restartOnly("extAuthz", event: "policy.ext_authz_settings_changed"))
}
