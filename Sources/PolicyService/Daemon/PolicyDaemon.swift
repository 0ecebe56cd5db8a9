import Foundation
public import HTTPServer
import JSONSupport
import NavigationPolicy
import ShareIntake
import Synchronization

/// The assembled daemon: policy store, API, HTTP server, config watching and shutdown.
///
/// The executable parses flags and handles signals; everything it starts lives here so
/// the same wiring is what tests run.
public final class PolicyDaemon: Sendable {
    /// Paths whose bodies may exceed the server-wide 64 KiB: the intake POST endpoints
    /// (multipart forms may hold 256 KiB; the other intake formats are held to 64 KiB by the
    /// payload parser) and the admin-only policy diff. `/v1/decide` keeps 64 KiB.
    static let bodyLimitsByPath = [
        PolicyAPI.Route.intake.rawValue: IntakeLimits().multipartBytes,
        PolicyAPI.Route.intakeShareTarget.rawValue: IntakeLimits().multipartBytes,
        // A candidate config plus the requests to replay; admin-only.
        PolicyAPI.Route.policyDiff.rawValue: 8 << 20,
    ]

    public let store: PolicyStore
    public let metrics: Metrics
    public let log: EventLog
    private let api: PolicyAPI
    private let server: HTTPServer
    /// The admin listener and its responder, when `server.adminListen` (or the flag) asks for one.
    private let admin: (server: HTTPServer, address: ListenAddress)?
    private let decisionLog: DecisionLog?
    private let settings: ServerSettings
    /// The sections the listeners, the intake store and the proxy were built from.
    private let restartOnly: RestartOnlySettings
    private let stopped = Atomic<Bool>(false)
    private let notifier: SystemdNotifier?
    private let watchdog = Mutex<WatchdogTimer?>(nil)
    private let proxy: ProxyListener?
    /// SIGUSR1 → reopen the decision log; kept alive while the daemon runs.
    private let reopenSignal = Mutex<SignalSource?>(nil)

    /// A dispatch source handed between threads: only created, stored and cancelled, under the
    /// mutex (`DispatchSource` itself is thread-safe but not marked `Sendable`).
    private final class SignalSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
        init(_ source: any DispatchSourceSignal) { self.source = source }
    }
    /// The bound listeners, for the status page.
    private let listeners: ListenerDirectory
    private let listenAddress: ListenAddress

    public init(configuration options: DaemonConfiguration, log: EventLog) throws(DecisionLogError) {
        let settings = options.initial.settings
        let restartOnly = options.restartOnly
        let intakeSettings = restartOnly.intake
        let store = PolicyStore(
            configPath: options.configPath, initial: options.initial, maxConfigBytes: options.maxConfigBytes)
        let metrics = Metrics(version: options.version)
        var decisionLog: DecisionLog?
        if let path = options.decisionLogPath {
            decisionLog = try DecisionLog(
                path: path, onDrop: { metrics.recordDecisionLogDrop() },
                onReopen: { failure in
                    if let failure {
                        log.log(
                            .error, "decision_log.reopen_failed",
                            [
                                "path": .string(path), "reason": .string(failure),
                                "detail": .string("still writing to the old file"),
                            ])
                    } else {
                        log.log(.info, "decision_log.reopened", ["path": .string(path)])
                    }
                },
                // Read from the active policy before each write, so a reload changes it.
                maximumBytes: {
                    store.snapshot.map { DecisionLogSettings.from($0.policy).maxBytes } ?? DecisionLogSettings.defaultMaxBytes
                },
                onFull: { fileBytes, maximumBytes in
                    log.log(
                        .warning, "decision_log.full",
                        [
                            "path": .string(path), "fileBytes": .number(Double(fileBytes)),
                            "maxBytes": .number(Double(maximumBytes)),
                            "detail": .string("decisionLog.maxBytes reached: lines are dropped until the file is rotated"),
                        ])
                })
        }
        options.intake?.store.observeCommits { writes in metrics.recordIntakeCommit(writes: writes) }
        // Switching files under the daemon, or losing the database server, is an operator's
        // business: warn so it shows in alerts. The server answering again is the all-clear.
        options.intake?.store.observeEvents { event, fields in
            log.log(event == "intake.store_connected" ? .info : .warning, event, fields)
        }
        let serverBox = Mutex<HTTPServer?>(nil)
        let recorder = DecisionRecorder(metrics: metrics, log: decisionLog)
        let notifier = options.notifier
        let endpoints = Dictionary(options.listeners.map { ($0.kind.role, $0.endpoint) }) { first, _ in first }
        let apiEndpoint = endpoints[ListenerKind.api.role] ?? ListenerEndpoint(address: options.apiAddress)
        let adminEndpoint = endpoints[ListenerKind.admin.role]
        let draining = DrainingFlag()
        let authFailures = AuthFailureLog(log: log)
        let listeners = ListenerDirectory()
        let intakeEndpoints = Self.intakeEndpoints(
            options.intake, settings: intakeSettings, policies: store, recorder: recorder, log: log,
            authFailures: authFailures)
        func makeAPI(_ surface: PolicyAPI.Surface) -> PolicyAPI {
            PolicyAPI(
                store: store, metrics: metrics, recorder: recorder, adminToken: options.adminToken,
                requireTokenForDecide: settings.requireTokenForDecide,
                reload: { trigger in
                    Self.reload(
                        store: store, metrics: metrics, log: log,
                        restartOnly: restartOnly, trigger: trigger, notifier: notifier)
                },
                openConnections: { serverBox.withLock { $0?.openConnections ?? 0 } },
                intake: intakeEndpoints, decisionLogPath: options.decisionLogPath, authFailures: authFailures,
                status: StatusSources(listeners: listeners), surface: surface, draining: draining)
        }
        let api = makeAPI(adminEndpoint == nil ? .all : .api)
        var configuration = settings.httpConfiguration(
            address: apiEndpoint.address, bodyLimitsByPath: Self.bodyLimitsByPath,
            problemTypePrefix: ProblemRenderer.typePrefix)
        configuration.inheritedListenSocket = apiEndpoint.inheritedSocket
        let server = HTTPServer(configuration: configuration, routingResponder: api) { event in
            Self.logServerEvent(event, listener: nil, log: log, metrics: metrics)
        }
        if let adminEndpoint {
            var adminConfiguration = Self.adminConfiguration(settings: settings, address: adminEndpoint.address)
            adminConfiguration.inheritedListenSocket = adminEndpoint.inheritedSocket
            let adminServer = HTTPServer(
                configuration: adminConfiguration,
                routingResponder: makeAPI(.admin)
            ) { event in Self.logServerEvent(event, listener: "admin", log: log, metrics: metrics) }
            admin = (adminServer, adminEndpoint.address)
        } else {
            admin = nil
        }
        serverBox.withLock { $0 = server }
        proxy = endpoints[ListenerKind.proxy.role].map {
            ProxyListener.make(
                endpoint: $0, initial: options.initial, decisions: DecisionPoint(store: store, recorder: recorder), log: log)
        }
        self.store = store
        self.metrics = metrics
        self.log = log
        self.api = api
        self.server = server
        self.decisionLog = decisionLog
        self.settings = settings
        self.restartOnly = restartOnly
        self.listeners = listeners
        self.listenAddress = apiEndpoint.address
        self.notifier = notifier
    }

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

    private static func adminConfiguration(settings: ServerSettings, address: ListenAddress) -> HTTPServerConfiguration {
        var configuration = settings.httpConfiguration(
            address: address, bodyLimitsByPath: bodyLimitsByPath, problemTypePrefix: ProblemRenderer.typePrefix)
        configuration.threadPoolSize = 1
        configuration.connectionLimit = adminConnectionLimit
        configuration.perIPConnectionLimit = adminPerIPConnectionLimit
        configuration.perSubnetConnectionLimit = adminPerSubnetConnectionLimit
        return configuration
    }

    private static func logServerEvent(_ event: HTTPServerLogEvent, listener: String?, log: EventLog, metrics: Metrics) {
        let level = EventLog.Level(rawValue: event.level.rawValue) ?? .info
        var fields = event.fields
        if let listener { fields.append("listener", .string(listener)) }
        log.log(level, event.event, fields)
        // Requests the HTTP layer refuses (413, 414, 431, framing 400s) never reach the API;
        // count them too, so /metrics shows the abuse a client log would not.
        if event.event == "http.request_rejected", let status = event.fields["status"]?.integerValue {
            metrics.recordRequest(endpoint: "rejected", status: status, seconds: 0)
        }
    }

    /// The intake endpoints: backed by the opened store; storeless (404 `intake-disabled`)
    /// when `intake.enabled` is false; unconfigured (503) when the caller opened no store
    /// although intake is enabled, which only in-process embedders do.
    private static func intakeEndpoints(
        _ intake: DaemonConfiguration.Intake?, settings: IntakeSettings, policies: PolicyStore, recorder: DecisionRecorder,
        log: EventLog, authFailures: AuthFailureLog
    ) -> IntakeEndpoints {
        if let intake {
            return IntakeEndpoints(
                availability: .open(intake.store), settings: intake.settings, token: intake.token, policies: policies,
                recorder: recorder, log: log, authFailures: authFailures)
        }
        return IntakeEndpoints(
            availability: settings.enabled ? .notConfigured : .disabled, settings: settings, token: nil,
            policies: policies, recorder: recorder, log: log)
    }

    /// Binds and starts serving; returns the bound port. Starts the config watcher if enabled,
    /// and handles SIGUSR1 (reopen the decision log, for logrotate's `create` rotation).
    public func start() throws(HTTPServerError) -> UInt16 {
        let port = try server.start()
        listeners.add(role: "api", address: ListenAddress(host: listenAddress.host, port: port).description)
        if let admin {
            let adminPort = try admin.server.start()
            let address = ListenAddress(host: admin.address.host, port: adminPort).description
            log.log(.info, "admin.listening", ["address": .string(address)])
            listeners.add(role: "admin", address: address)
        }
        try proxy?.start()
        startReopeningOnSignal()
        if let proxy, let proxyPort = proxy.server.boundPort {
            listeners.add(role: "proxy", address: ListenAddress(host: proxy.address.host, port: proxyPort).description)
        }
        notifier?.notify("READY=1") { [log] in log.log(.warning, "systemd.notify_failed", ["reason": .string($0)]) }
        startWatchdog()
        if settings.watchConfig {
            ConfigWatcher(path: store.configPath, interval: .milliseconds(settings.watchIntervalMilliseconds)) {
                [self] in _ = self.reload(trigger: "file-watch")
            }.start()
        }
        return port
    }

    /// Reopens the decision log at its configured path (what SIGUSR1 does); without a
    /// decision log it only logs that there is nothing to reopen.
    public func reopenDecisionLog() {
        guard let decisionLog else {
            log.log(.debug, "decision_log.reopen_skipped", ["detail": .string("no --decision-log is configured")])
            return
        }
        decisionLog.reopen()
    }

    /// SIGUSR1's default action ends the process: the daemon takes it over for the reopen
    /// (as the executable does SIGHUP for reloads), through a dispatch source, so nothing
    /// runs in signal context.
    private func startReopeningOnSignal() {
        signal(SIGUSR1, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "navpolicyd.sigusr1"))
        source.setEventHandler { [weak self] in self?.reopenDecisionLog() }
        source.resume()
        let box = SignalSource(source)
        reopenSignal.withLock { $0 = box }
    }

    /// Pings the systemd watchdog at half its timeout while the API listener is serving: a
    /// daemon whose server has stopped (or whose process hangs) stops pinging and is
    /// restarted by systemd.
    private func startWatchdog() {
        guard let notifier, let interval = notifier.watchdogInterval else { return }
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "navpolicyd.systemd-watchdog"))
        let milliseconds = max(
            1, Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        source.schedule(deadline: .now(), repeating: .milliseconds(milliseconds), leeway: .milliseconds(milliseconds / 10))
        source.setEventHandler { [weak self] in
            guard let self, !self.stopped.load(ordering: .relaxed), self.server.boundPort != nil else { return }
            notifier.notify("WATCHDOG=1") { [log] in log.log(.warning, "systemd.notify_failed", ["reason": .string($0)]) }
        }
        watchdog.withLock { $0 = WatchdogTimer(source: source) }
        source.resume()
    }

    /// Reloads the policy, logging and counting the outcome.
    public func reload(trigger: String) -> PolicyStore.ReloadOutcome {
        Self.reload(
            store: store, metrics: metrics, log: log, restartOnly: restartOnly, trigger: trigger, notifier: notifier)
    }

    private static func reload(
        store: PolicyStore, metrics: Metrics, log: EventLog,
        restartOnly: RestartOnlySettings, trigger: String,
        notifier: SystemdNotifier?
    ) -> PolicyStore.ReloadOutcome {
        // systemd holds `systemctl reload` from RELOADING=1 until the next READY=1.
        notifier?.notify(SystemdNotifier.reloadingMessage())
        defer { notifier?.notify("READY=1") }
        let outcome = store.reload(trigger: trigger)
        metrics.recordReload(result: outcome.result.rawValue)
        switch outcome.result {
        case .reloaded:
            log.log(.info, "policy.reloaded", outcome.jsonObject)
            // The listeners, the intake store and the proxy were built once at start.
            for change in store.snapshot.map(restartOnly.changes(in:)) ?? [] {
                log.log(.warning, change.event, ["detail": .string(change.detail)])
            }
        case .unchanged:
            log.log(.debug, "policy.unchanged", outcome.jsonObject)
        case .failed:
            log.log(.error, "policy.reload_failed", outcome.jsonObject)
        }
        return outcome
    }

    /// Stops accepting on every listener, lets requests in flight finish (bounded), flushes
    /// the decision log.
    ///
    /// The API, admin and proxy listeners drain together: all stop accepting first (new
    /// connections are refused at once, so clients fail over), then each gets the same
    /// deadline, so the whole shutdown takes at most one `drainTimeoutSeconds` (plus a
    /// moment to close), not one per listener, and stays within systemd's `TimeoutStopSec`
    /// and Kubernetes' grace period.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        reopenSignal.withLock { $0?.source.cancel() }
        notifier?.notify("STOPPING=1")
        watchdog.withLock { $0?.source.cancel() }
        api.beginDraining()
        let servers = [server, admin?.server, proxy?.server].compactMap { $0 }
        for listener in servers { listener.stopAccepting() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(settings.drainTimeoutSeconds))
        for listener in servers { listener.shutdown(until: deadline) }
        proxy?.endTransfers()
        decisionLog?.close()
    }
}

/// The watchdog's timer source; `@unchecked Sendable` because Dispatch sources are
/// thread-safe but not annotated.
private struct WatchdogTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
}
