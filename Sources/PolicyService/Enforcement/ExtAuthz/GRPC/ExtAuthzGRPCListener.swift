import GRPCServer
import JSONSupport

extension ListenerKind {
    /// Envoy's ext_authz gRPC API (`envoy.service.auth.v3.Authorization/Check`) and the gRPC
    /// health protocol, over HTTP/2 cleartext: `serve --ext-authz-grpc-listen` or
    /// `extAuthz.grpcListen` (docs/envoy.md). It shares the `extAuthz` section with the HTTP
    /// ext_authz listener.
    static let extAuthzGRPC = ListenerKind(
        role: "ext-authz-grpc",
        flag: ListenFlag(
            "ext-authz-grpc-listen",
            help: "also serve Envoy's ext_authz gRPC Check (HTTP/2 cleartext) there (extAuthz.grpcListen; see docs/envoy.md)"),
        clashName: "ext-authz-grpc listen", configured: { ExtAuthzSettings.from($0.policy).grpcListen },
        sections: [.extAuthz]
    ) { context in
        let services = context.services
        let store = services.store
        let responder = ExtAuthzGRPCResponder(
            check: ExtAuthzCheck(
                decisions: services.decisions(for: .extAuthzGRPC), settings: ExtAuthzSettings.from(context.initial.policy)),
            hasPolicy: { store.snapshot != nil }, draining: services.draining)
        let settings = context.settings
        let address = context.endpoint.address
        var configuration = GRPCServerConfiguration(
            host: address.host == "localhost" ? "127.0.0.1" : address.host, port: address.port)
        configuration.inheritedListenSocket = context.endpoint.inheritedSocket
        // The `server` section's bounds, as on every listener (per address, per network, and
        // the slots kept for small networks); a thread per connection, so the total is also
        // capped at 1024 threads (Envoy keeps one connection per worker).
        configuration.shareConnections(
            total: settings.connectionLimit, perAddress: settings.perIPConnectionLimit,
            perSubnet: settings.perSubnetConnectionLimit)
        configuration.idleTimeoutSeconds = settings.idleTimeoutSeconds
        configuration.requestTimeoutSeconds = settings.headTimeoutSeconds
        let log = services.log
        let metrics = services.metrics.grpc
        let checks = services.metrics.extAuthz
        metrics.enable()
        // A client opening connections past its share gets one refusal each: as on the HTTP
        // listeners, those lines are rate-limited (the metric still counts every refusal).
        let refusals = RateLimitedEvent(
            "grpc.connection_refused", level: .warning, limit: 20, windowMilliseconds: 1_000, log: log,
            metrics: services.metrics)
        let server = GRPCServer(
            configuration: configuration, methods: responder.methods,
            observer: GRPCServerObserver(
                event: { event, fields in
                    let object = {
                        var object: JSONObject = ["listener": .string("ext-authz-grpc")]
                        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { object.append(name, .string(value)) }
                        return object
                    }
                    guard event == refusals.event else { return log.log(.info, event, object()) }
                    metrics.connectionRefused()
                    refusals.record(object)
                },
                answered: { path, status in
                    metrics.answered(path: path, status: status)
                    // A Check call the transport answered itself (RESOURCE_EXHAUSTED for a message
                    // or header list past its limit, a framing error, not gRPC) never reached the
                    // responder, which counts the rest: an `invalid` check (attack round 8, F6).
                    if path == ExtAuthzGRPCResponder.checkPath, !ExtAuthzGRPCResponder.countedStatuses.contains(status) {
                        checks.record(.grpc, .invalid)
                    }
                }))
        return Listener(
            role: context.role, endpoint: context.endpoint, server: server, listeningEvent: "ext_authz_grpc.listening",
            startFailureLabel: "ext_authz gRPC listener", finish: {})
    }
}
