import HTTPServer
import JSONSupport
import NavigationPolicy

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

    /// The listener the options and the config ask for, or nil when neither does.
    static func make(options: PolicyDaemon.Options, decisions: DecisionPoint, log: EventLog) -> ProxyListener? {
        let proxySettings = ProxySettings.from(options.initial.policy)
        let configured = proxySettings.listen.flatMap { try? ListenAddress.parse($0).get() }
        let inherited = options.socketActivation?.proxy
        // A passed proxy socket needs no address; the API listener's host labels it in logs.
        guard
            let address = options.proxyListen ?? configured
                ?? inherited.map({ _ in ListenAddress(host: options.listen.host, port: 0) })
        else { return nil }
        let server = options.initial.settings
        // The same limits and deadlines as the API listener: one `server` section for both.
        var configuration = server.httpConfiguration(
            address: address, maxBodyBytes: proxySettings.maxRequestBodyBytes, problemTypePrefix: ProblemRenderer.typePrefix)
        configuration.inheritedListenSocket = inherited
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
