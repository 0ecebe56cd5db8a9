import HTTPServer
import NavigationPolicy

extension ListenerKind {
    /// The enforcing forward/reverse proxy (docs/proxy.md): an ``HTTPServer`` running the
    /// ``ProxyResponder``, at `proxy.listen` or `--proxy-listen`.
    static let proxy = ListenerKind(
        role: "proxy",
        flag: ListenFlag("proxy-listen", help: "also run the enforcing forward/reverse proxy there (see docs/proxy.md)"),
        clashName: "proxy listen", configured: { ProxySettings.from($0.policy).listen }, sections: [.proxy]
    ) { context in
        let settings = ProxySettings.from(context.initial.policy)
        let responder = ProxyResponder(
            decisions: context.services.decisions(for: .proxy), settings: settings, log: context.services.log)
        let metrics = context.services.metrics
        metrics.enableProxyMetrics()
        // The same limits and deadlines as the API listener: one `server` section for both.
        var configuration = context.serverConfiguration(maxBodyBytes: settings.maxRequestBodyBytes)
        // CONNECT reaches the responder, which takes the socket over for the tunnel.
        configuration.acceptsConnect = true
        return context.listener(
            responder, configuration: configuration,
            logLabel: "proxy", listeningEvent: "proxy.listening",
            // Requests the HTTP layer refuses are proxy answers all the same.
            countRejected: { metrics.recordProxyRequest(status: $0) },
            finish: { responder.client.shutdown() })
    }
}

extension DaemonSection {
    /// `proxy`: the proxy's listener, origins and limits, built once at start.
    static let proxy = DaemonSection(
        "proxy", as: ProxySettings.self, restartWarning: restartOnly("proxy", event: "policy.proxy_settings_changed"))
}
