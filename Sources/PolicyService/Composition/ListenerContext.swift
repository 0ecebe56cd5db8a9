import HTTPServer
import JSONSupport

/// What a ``ListenerKind`` builds its ``Listener`` from: its role and endpoint, the service's
/// pieces (``ServiceFactory``), the policy the daemon starts with, and which other listeners run.
struct ListenerContext: Sendable {
    /// The role of the listener being built.
    let role: String
    /// Its resolved endpoint.
    let endpoint: ListenerEndpoint
    /// The store, metrics, recorder and responders every listener shares.
    let services: ServiceFactory
    /// The policy (and its `server` and `proxy` sections) the daemon starts with.
    let initial: PolicySnapshot
    /// The roles of every listener that runs.
    let running: Set<String>
    /// The ext_authz settings, flags applied (``DaemonConfiguration/extAuthz``).
    let extAuthz: ExtAuthzSettings

    /// The `server` section: one set of limits and deadlines for every listener.
    var settings: ServerSettings { initial.settings }

    /// Whether a listener of `kind` runs beside this one.
    func runs(_ kind: ListenerKind) -> Bool { running.contains(kind.role) }

    /// The server configuration at this endpoint with the `server` section's limits.
    func serverConfiguration(maxBodyBytes: Int = 65_536, bodyLimitsByPath: [String: Int] = [:]) -> HTTPServerConfiguration {
        var configuration = settings.httpConfiguration(
            address: endpoint.address, maxBodyBytes: maxBodyBytes, bodyLimitsByPath: bodyLimitsByPath,
            problemTypePrefix: ProblemRenderer.typePrefix)
        configuration.inheritedListenSocket = endpoint.inheritedSocket
        return configuration
    }

    /// Counts a request the HTTP layer refused with a status as the `rejected` endpoint of
    /// `navpolicyd_http_requests_total`: what every listener but the proxy does.
    static func countingRejected(_ metrics: Metrics) -> @Sendable (Int) -> Void {
        { metrics.recordRequest(endpoint: "rejected", status: $0, seconds: 0) }
    }

    /// The listener serving `responder` with `configuration`.
    /// - Parameters:
    ///   - logLabel: the `listener` field of its server's log events; nil for the API listener.
    ///   - listeningEvent: see ``Listener/listeningEvent``.
    ///   - countRejected: counts a request the HTTP layer refused with this status; by
    ///     default as the `rejected` endpoint of `navpolicyd_http_requests_total`.
    ///   - finish: see ``Listener/finish``.
    func listener(
        _ responder: any HTTPResponder, configuration: HTTPServerConfiguration, logLabel: String?,
        listeningEvent: String?, countRejected: (@Sendable (Int) -> Void)? = nil,
        finish: @escaping @Sendable () -> Void = {}
    ) -> Listener {
        let log = services.log
        let metrics = services.metrics
        let countRejected = countRejected ?? Self.countingRejected(metrics)
        let server = HTTPServer(configuration: configuration, responder: responder) { event in
            let level = EventLog.Level(rawValue: event.level.rawValue) ?? .info
            // Requests the HTTP layer refuses (413, 414, 431, framing 400s) never reach the
            // responder; count them too, so /metrics shows the abuse a client log would not.
            if event.event == "http.request_rejected", let status = event.fields["status"]?.integerValue {
                countRejected(status)
            }
            var fields = event.fields
            if let logLabel { fields.append("listener", .string(logLabel)) }
            log.log(level, event.event, fields)
        }
        return Listener(
            role: role, endpoint: endpoint, server: server, listeningEvent: listeningEvent, finish: finish)
    }
}
