import HTTPServer
import JSONSupport
import NavigationPolicy

extension ListenerKind {
    /// The enforcing forward/reverse proxy (docs/proxy.md): `proxy.listen` or `--proxy-listen`.
    static let proxy = ListenerKind(
        role: "proxy", flag: "--proxy-listen", clashName: "proxy listen",
        configured: { ProxySettings.from($0.policy).listen })
}

/// The second listener of `serve`: an ``HTTPServer`` running the ``ProxyResponder``.
final class ProxyListener: Sendable {
    let server: HTTPServer
    let responder: ProxyResponder
    let address: ListenAddress
    let log: EventLog

    private init(server: HTTPServer, responder: ProxyResponder, address: ListenAddress, log: EventLog) {
        self.server = server
        self.responder = responder
        self.address = address
        self.log = log
    }

    /// The listener at `endpoint`, built from the config's `proxy` section.
    static func make(
        endpoint: ListenerEndpoint, initial: PolicySnapshot, decisions: DecisionPoint, log: EventLog
    ) -> ProxyListener {
        let proxySettings = ProxySettings.from(initial.policy)
        let address = endpoint.address
        // The same limits and deadlines as the API listener: one `server` section for both.
        var configuration = initial.settings.httpConfiguration(
            address: address, maxBodyBytes: proxySettings.maxRequestBodyBytes, problemTypePrefix: ProblemRenderer.typePrefix)
        configuration.inheritedListenSocket = endpoint.inheritedSocket
        let responder = ProxyResponder(decisions: decisions, settings: proxySettings, log: log)
        let metrics = decisions.recorder.metrics
        metrics.enableProxyMetrics()
        let httpServer = HTTPServer(configuration: configuration, routingResponder: responder) { event in
            let level = EventLog.Level(rawValue: event.level.rawValue) ?? .info
            // Requests the HTTP layer refuses (413, 414, 431, framing 400s) never reach the
            // responder; they are proxy answers all the same.
            if event.event == "http.request_rejected", let status = event.fields["status"]?.integerValue {
                metrics.recordProxyRequest(status: status)
            }
            var fields = event.fields
            fields.append("listener", .string("proxy"))
            log.log(level, event.event, fields)
        }
        return ProxyListener(server: httpServer, responder: responder, address: address, log: log)
    }

    /// Binds and starts; logs `proxy.listening` with the bound address.
    func start() throws(HTTPServerError) {
        let port = try server.start()
        let bound = ListenAddress(host: address.host, port: port)
        log.log(.info, "proxy.listening", ["address": .string(bound.description)])
    }

    /// Ends the transfers still running; call after the server has shut down (their bodies
    /// were cut when it closed the connections).
    func endTransfers() {
        responder.client.shutdown()
    }
}
