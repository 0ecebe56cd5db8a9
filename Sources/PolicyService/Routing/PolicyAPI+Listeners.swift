/// The listeners that serve ``PolicyAPI``: the API listener, and the admin listener when
/// `server.adminListen` (or `--admin-listen`) asks for one.
extension ListenerKind {
    /// Decisions, authz, intake and the probes; everything when there is no admin listener.
    static let api = ListenerKind(
        role: "api",
        flag: ListenFlag("listen", help: "address to listen on (IPv4, [IPv6] or localhost; port 0 = any free port)"),
        clashName: "listen", configured: { $0.settings.listen }
    ) { context in
        // Beside an admin listener, the admin routes are not in this listener's table (404).
        let api = context.services.api(context.runs(.admin) ? .api : .all)
        return context.listener(
            api, configuration: context.serverConfiguration(bodyLimitsByPath: PolicyDaemon.bodyLimitsByPath),
            logLabel: nil, listeningEvent: nil)
    }

    /// Probes, metrics, the policy views, reload, diff and the status page, on connections of
    /// their own, so they still get in when the API listener is saturated.
    static let admin = ListenerKind(
        role: "admin",
        flag: ListenFlag(
            "admin-listen",
            help:
                "serve /healthz, /readyz, /readyz/intake, /metrics, /v1/policy, reload, diff and the status page on a "
                + "listener of their own (server.adminListen)"),
        clashName: "admin listen", configured: { $0.settings.adminListen }
    ) { context in
        var configuration = context.serverConfiguration(bodyLimitsByPath: PolicyDaemon.bodyLimitsByPath)
        configuration.threadPoolSize = 1
        configuration.connectionLimit = PolicyDaemon.adminConnectionLimit
        configuration.perIPConnectionLimit = PolicyDaemon.adminPerIPConnectionLimit
        configuration.perSubnetConnectionLimit = PolicyDaemon.adminPerSubnetConnectionLimit
        return context.listener(
            context.services.api(.admin), configuration: configuration, logLabel: "admin",
            listeningEvent: "admin.listening")
    }
}

extension PolicyDaemon {
    /// Paths whose bodies may exceed the server-wide 64 KiB, as their routes declare: the
    /// intake POST endpoints and the admin-only policy diff and analysis. `/v1/decide` keeps 64 KiB.
    static let bodyLimitsByPath = Dictionary(
        uniqueKeysWithValues: RouteDeclaration.all.compactMap { route in route.bodyLimit.map { (route.path, $0) } })

    /// Admin traffic is a few probes and scrapes: one worker thread and connection limits of
    /// its own, so neither a flood on the API port nor one here starves the other.
    ///
    /// Small per-address and per-network shares of a total that is large for probes: one
    /// address holds 4, one /24 (or /64) 16, and the last eighth (32) only goes to networks
    /// holding fewer than 4. Filling it takes about 22 networks at once (with 64 in total and
    /// 8 per address, eight /24s with one address each did it); a kubelet probes one
    /// connection at a time and Prometheus keeps one or two open, far below these. What
    /// remains (a flood from dozens of networks) is for the network to stop: the shipped
    /// NetworkPolicy admits only Prometheus, and outside Kubernetes the admin listener belongs
    /// on loopback or a management network (docs/security.md).
    static let adminConnectionLimit = 256
    static let adminPerIPConnectionLimit = 4
    static let adminPerSubnetConnectionLimit = 16
}
