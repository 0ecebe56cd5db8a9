import Foundation
import HTTPServer
import JSONSupport
import PolicySections
import ShareIntake
import Synchronization

/// The assembled daemon: the service (``ServiceFactory``) and its listeners, config watching,
/// systemd notification and shutdown.
///
/// Built from a ``DaemonConfiguration``; each listener is a value (``Listener``) built by its
/// registered kind (``ListenerKind/all``), and the daemon starts, reports and drains them in
/// one loop. The executable resolves the configuration and handles the signals.
public final class PolicyDaemon: Sendable {
    /// The policy every listener decides with; reloads swap it.
    public let store: PolicyStore
    /// The counters `/metrics` shows.
    public let metrics: Metrics
    /// Where the daemon's events go (JSON lines).
    public let log: EventLog
    private let configuration: DaemonConfiguration
    private let services: ServiceFactory
    /// In start order; the first is the API listener.
    private let listeners: [Listener]
    private let stopped = Atomic<Bool>(false)
    private let watchdog = Mutex<WatchdogTimer?>(nil)
    /// Pulls the chain when the config has `policySource`; nil otherwise.
    private let policySource: PolicySourcePoller?

    /// Builds the service and every listener (nothing binds yet); fails only when the
    /// decision log cannot be opened.
    public init(configuration: DaemonConfiguration, log: EventLog) throws(DecisionLogError) {
        // With `policySource` the config file has no chain: nothing decides (and `/readyz` is
        // 503) until a pulled bundle, or the last good one on disk, passed the client's checks.
        let pulls = PolicySourceSettings.from(configuration.initial.policy).isConfigured
        let store = PolicyStore(
            configPath: configuration.configPath, initial: pulls ? nil : configuration.initial,
            maxConfigBytes: configuration.maxConfigBytes)
        let intakeSource: ServiceFactory.IntakeSource
        if let intake = configuration.intake {
            intakeSource = .open(intake.store, settings: intake.settings, token: intake.token)
        } else {
            let settings = IntakeSettings.from(configuration.initial.policy)
            intakeSource = settings.enabled ? .notConfigured(settings) : .disabled(settings)
        }
        // `/readyz` and the status page report the API listener's connections; the listener
        // is built after the responders that ask.
        let apiServer = Mutex<(any ListenerServer)?>(nil)
        let services = try ServiceFactory(
            store: store, version: configuration.version, log: log, decisionLogPath: configuration.decisionLogPath,
            adminToken: configuration.adminToken,
            requireTokenForDecide: configuration.initial.settings.requireTokenForDecide, intake: intakeSource,
            restartOnly: configuration.restartOnly, notifier: configuration.notifier,
            openConnections: { apiServer.withLock { $0?.openConnections ?? 0 } })
        let running = Set(configuration.listeners.map(\.kind.role))
        let listeners = configuration.listeners.map { resolved in
            resolved.kind.make(
                ListenerContext(
                    role: resolved.kind.role, endpoint: resolved.endpoint, services: services,
                    initial: configuration.initial, running: running, extAuthz: configuration.extAuthz))
        }
        apiServer.withLock { $0 = listeners.first?.server }
        self.store = store
        self.metrics = services.metrics
        self.log = log
        self.configuration = configuration
        self.services = services
        self.listeners = listeners
        self.policySource = PolicySourcePoller.make(
            local: configuration.initial, store: store, report: services.metrics.policySource, log: log)
    }

    /// Binds and starts every listener, in registration order, and logs `listening`. Starts
    /// the config watcher if enabled and tells systemd it is ready.
    public func start() throws(ListenerStartError) {
        var apiAddress = configuration.apiAddress
        for (index, listener) in listeners.enumerated() {
            let port: UInt16
            do {
                port = try listener.server.start()
            } catch {
                throw ListenerStartError(role: listener.role, reason: error, label: listener.startFailureLabel)
            }
            let bound = listener.endpoint.bound(port: port)
            if index == 0 { apiAddress = bound }
            if let event = listener.listeningEvent { log.log(.info, event, ["address": .string(bound.description)]) }
            services.directory.add(role: listener.role, address: bound.description)
        }
        configuration.notifier?.notify("READY=1") { [log] in
            log.log(.warning, "systemd.notify_failed", ["reason": .string($0)])
        }
        startWatchdog()
        policySource?.start()
        let settings = configuration.initial.settings
        if settings.watchConfig {
            ConfigWatcher(path: store.configPath, interval: .milliseconds(settings.watchIntervalMilliseconds)) {
                [self] in _ = self.reload(trigger: "file-watch")
            }.start()
        }
        log.log(.info, "listening", listeningFields(apiAddress: apiAddress))
    }

    /// What the `listening` line says: the API address, the policy, and which optional parts
    /// run. Booleans for the tokens, never their values; the intake store with a PostgreSQL
    /// password masked.
    private func listeningFields(apiAddress: ListenAddress) -> JSONObject {
        let initial = configuration.initial
        let intake = configuration.intake
        var fields: JSONObject = [
            "address": .string(apiAddress.description), "configPath": .string(configuration.configPath),
            "policyRevision": .string(initial.revision), "handlers": .number(Double(initial.policy.links.count)),
            "adminToken": .bool(configuration.adminToken != nil), "intake": .bool(intake != nil),
            "version": .string(configuration.version), "socketActivated": .bool(configuration.socketActivated),
            "systemdNotify": .bool(configuration.notifier != nil),
        ]
        fields.append("intakeDatabase", intake.map { .string($0.location.description) } ?? .null)
        fields.append("intakeToken", .bool(intake?.token != nil))
        return fields
    }

    /// Reopens the decision log at its configured path (what SIGUSR1 does, after logrotate
    /// renamed it); without a decision log it only logs that there is nothing to reopen.
    public func reopenDecisionLog() {
        guard let decisionLog = services.decisionLog else {
            log.log(.debug, "decision_log.reopen_skipped", ["detail": .string("no --decision-log is configured")])
            return
        }
        decisionLog.reopen()
    }

    /// Pings the systemd watchdog at half its timeout while the API listener is serving: a
    /// daemon whose server has stopped (or whose process hangs) stops pinging and is
    /// restarted by systemd.
    private func startWatchdog() {
        guard let notifier = configuration.notifier, let interval = notifier.watchdogInterval,
            let apiServer = listeners.first?.server
        else { return }
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "navpolicyd.systemd-watchdog"))
        let milliseconds = max(
            1, Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        source.schedule(deadline: .now(), repeating: .milliseconds(milliseconds), leeway: .milliseconds(milliseconds / 10))
        source.setEventHandler { [weak self] in
            guard let self, !self.stopped.load(ordering: .relaxed), apiServer.boundPort != nil else { return }
            notifier.notify("WATCHDOG=1") { [log] in log.log(.warning, "systemd.notify_failed", ["reason": .string($0)]) }
        }
        watchdog.withLock { $0 = WatchdogTimer(source: source) }
        source.resume()
    }

    /// Reloads the policy, logging and counting the outcome.
    public func reload(trigger: String) -> PolicyStore.ReloadOutcome {
        services.reloader.reload(trigger: trigger)
    }

    /// Stops accepting on every listener, lets requests in flight finish (bounded), flushes
    /// the decision log.
    ///
    /// The listeners drain together: all stop accepting first (new connections are refused at
    /// once, so clients fail over), then each gets the same deadline, so the whole shutdown
    /// takes at most one `drainTimeoutSeconds` (plus a moment to close), not one per
    /// listener, and stays within systemd's `TimeoutStopSec` and Kubernetes' grace period.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        configuration.notifier?.notify("STOPPING=1")
        watchdog.withLock { $0?.source.cancel() }
        policySource?.stop()
        // `/readyz` turns 503 on every API listener, so load balancers stop sending.
        services.draining.begin()
        for listener in listeners { listener.server.stopAccepting() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(configuration.initial.settings.drainTimeoutSeconds))
        for listener in listeners { listener.server.shutdown(until: deadline) }
        for listener in listeners { listener.finish() }
        services.decisionLog?.close()
    }
}

/// The watchdog's timer source; `@unchecked Sendable` because Dispatch sources are
/// thread-safe but not annotated.
private struct WatchdogTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
}
