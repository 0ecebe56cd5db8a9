import Dispatch
import Foundation
import JSONSupport
import NavigationPolicy
package import PolicyService
import ShareIntake

/// `navpolicyd serve`: the HTTP daemon.
package struct ServeCommand: ParsableCommand {
    static let config = Option.text("config", "FILE", kind: .file, help: SharedHelp.config)
    static let listen = Option.text(
        "listen", "HOST:PORT", kind: .address,
        help: "address to listen on (IPv4, [IPv6] or localhost; port 0 = any free port)")
    static let decisionLog = Option.text(
        "decision-log", "FILE", kind: .file, help: "append one NDJSON line per decision (written off the request path)")
    static let adminTokenFile = Option.text(
        "admin-token-file", "FILE", kind: .file, help: "bearer token for /v1/policy/reload ($NAVPOLICY_ADMIN_TOKEN wins)")
    static let proxyListen = Option.text(
        "proxy-listen", "HOST:PORT", kind: .address,
        help: "also run the enforcing forward/reverse proxy there (see docs/proxy.md)")
    static let adminListen = Option.text(
        "admin-listen", "HOST:PORT", kind: .address,
        help: "serve /healthz, /readyz, /metrics, /v1/policy, reload and diff on a listener of their own (server.adminListen)")
    static let logLevel = Option.text(
        "log-level", "LEVEL", kind: .choice(EventLog.Level.allCases.map(\.rawValue)),
        help: "the least severe event written to stderr: debug, info, warning or error", default: EventLog.Level.info.rawValue)

    package static let declaration = CommandDeclaration(
        name: "serve",
        summary: "Run the HTTP daemon (decisions, policy, health and metrics endpoints)",
        discussion: """
            Serves GET/POST /v1/decide, GET /v1/policy, POST /v1/policy/reload, /healthz,
            /readyz, /metrics and the share intake (/v1/intake, /v1/intake/share-target,
            /v1/intake/{id}). Listens on 127.0.0.1:8080 unless --listen or the config's
            server.listen says otherwise.
            """,
        notes: """
            Reloads the policy on SIGHUP, when the config file changes, and on POST /v1/policy/reload;
            an invalid config is rejected and the running policy keeps serving.
            SIGTERM or SIGINT: refuse new connections, finish requests in flight on every listener
            together (server.drainTimeoutSeconds), exit 0.
            SIGUSR1: reopen the decision log at its configured path (after logrotate renamed it).
            Logs are JSON lines on stderr, from --log-level up.

            Share intake stores items in intake.database, by default intake.sqlite3 in the data
            directory ($NAVPOLICY_DATA_DIR, else var/navpolicyd under the working directory).
            With intake.enabled false no database is opened and the intake endpoints answer 404.
            $NAVPOLICY_INTAKE_TOKEN (or intake.tokenFile) requires a bearer token on every intake endpoint.

            Under systemd: READY=1, RELOADING=1 and STOPPING=1 go to $NOTIFY_SOCKET (Type=notify),
            WATCHDOG=1 every WATCHDOG_USEC/2, and sockets passed as LISTEN_FDS (FileDescriptorName=
            api, admin, proxy) are served instead of binding (deploy/systemd/navpolicyd.socket).

            Exit status: 0 after a clean shutdown; 2 when the config, flags or address are invalid.
            """,
        options: [
            config.declaration, ConfigLoader.maxBytesOption.declaration, listen.declaration, decisionLog.declaration,
            adminTokenFile.declaration,
            proxyListen.declaration, adminListen.declaration, logLevel.declaration,
        ])

    package var configPath: String?
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var listenText: String?
    package var decisionLogPath: String?
    package var adminTokenFilePath: String?
    package var proxyListenText: String?
    package var adminListenText: String?
    package var logLevel: EventLog.Level

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[Self.config]
        maxConfigBytesText = arguments[ConfigLoader.maxBytesOption]
        listenText = arguments[Self.listen]
        decisionLogPath = arguments[Self.decisionLog]
        adminTokenFilePath = arguments[Self.adminTokenFile]
        proxyListenText = arguments[Self.proxyListen]
        adminListenText = arguments[Self.adminListen]
        logLevel = arguments[Self.logLevel].flatMap(EventLog.Level.init(rawValue:)) ?? .info
    }

    /// The size cap's value (flag or environment) is checked before anything runs.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
    }

    package func run(_ output: Output) -> Int32 {
        let log = EventLog.standardError.filtered(from: logLevel)
        let configPath = ConfigLoader.resolvePath(flag: configPath)
        let initial: PolicySnapshot
        do throws(ConfigLoader.LoadError) {
            switch PolicySnapshot.build(from: try ConfigLoader.read(configPath, maxBytes: maxConfigBytes)) {
            case .success(let snapshot): initial = snapshot
            case .failure(let error): throw ConfigLoader.LoadError.invalid(path: configPath, error)
            }
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        let listenText = listenText ?? initial.settings.listen
        let listen: ListenAddress
        switch ListenAddress.parse(listenText) {
        case .success(let address): listen = address
        case .failure(let error):
            output.err("navpolicyd serve: --listen \(listenText): \(error.reason)")
            return ExitCode.usage
        }
        let token: AdminToken?
        switch AdminToken.load(
            environmentVariable: "NAVPOLICY_ADMIN_TOKEN",
            file: adminTokenFilePath ?? initial.settings.adminTokenFile)
        {
        case .success(let loaded): token = loaded
        case .failure(let error):
            output.err("navpolicyd serve: \(error.reason)")
            return ExitCode.usage
        }

        // intake.enabled false: no store, no data directory, no intake token; the endpoints answer 404.
        var intake: PolicyDaemon.IntakeOptions?
        let intakeSettings = IntakeSettings.from(initial.policy)
        if intakeSettings.enabled {
            switch Self.openIntake(intakeSettings) {
            case .success(let options): intake = options
            case .failure(let error):
                output.err("navpolicyd serve: \(error.description)")
                return ExitCode.usage
            }
        }

        var options = PolicyDaemon.Options(
            configPath: configPath, initial: initial, listen: listen,
            decisionLogPath: decisionLogPath, adminToken: token, version: CommandLineTool.version,
            intake: intake)
        options.maxConfigBytes = maxConfigBytes
        if let proxyText = proxyListenText {
            switch ListenAddress.parse(proxyText) {
            case .success(let address): options.proxyListen = address
            case .failure(let error):
                output.err("navpolicyd serve: --proxy-listen \(proxyText): \(error.reason)")
                return ExitCode.usage
            }
        }
        if let adminText = adminListenText {
            switch ListenAddress.parse(adminText) {
            case .success(let address): options.adminListen = address
            case .failure(let error):
                output.err("navpolicyd serve: --admin-listen \(adminText): \(error.reason)")
                return ExitCode.usage
            }
        }
        let environment = ProcessInfo.processInfo.environment
        switch SocketActivation.fromEnvironment(environment) {
        case .success(let activation): options.socketActivation = activation
        case .failure(let error):
            output.err("navpolicyd serve: socket activation: \(error)")
            return ExitCode.usage
        }
        SocketActivation.clearEnvironment()
        switch SystemdNotifier.fromEnvironment(environment) {
        case .success(let notifier): options.notifier = notifier
        case .failure(let error):
            output.err("navpolicyd serve: \(error)")
            return ExitCode.usage
        }
        if let clash = Self.listenerClash(options) {
            output.err("navpolicyd serve: \(clash)")
            return ExitCode.usage
        }
        let daemon: PolicyDaemon
        do {
            daemon = try PolicyDaemon(options: options, log: log)
        } catch {
            output.err("navpolicyd serve: --decision-log: \(error)")
            return ExitCode.usage
        }
        // Before the start: a signal sent once the daemon is listening (or READY=1) must find
        // its source registered; what arrives during the start waits for it (StartupSignals).
        let startup = StartupSignals()
        let signalSources = Self.installSignalHandlers(daemon: daemon, log: log, startup: startup)
        let port: UInt16
        do {
            port = try daemon.start()
        } catch {
            output.err("navpolicyd serve: cannot start on \(listen): \(error)")
            return ExitCode.usage
        }
        let bound = ListenAddress(host: listen.host, port: port)
        var listening: JSONObject = [
            "address": .string(bound.description), "configPath": .string(configPath),
            "policyRevision": .string(initial.revision), "handlers": .number(Double(initial.policy.links.count)),
            "adminToken": .bool(token != nil), "intake": .bool(intake != nil), "version": .string(CommandLineTool.version),
            "socketActivated": .bool(options.socketActivation != nil), "systemdNotify": .bool(options.notifier != nil),
        ]
        // Which store (a PostgreSQL URI with its password masked) and whether intake is
        // guarded: booleans, never token values.
        listening.append(
            "intakeDatabase", intake != nil ? .string(Self.intakeLocation(intakeSettings).description) : .null)
        listening.append("intakeToken", .bool(intake?.token != nil))
        log.log(.info, "listening", listening)
        let pending = startup.markRunning()
        if let stopSignal = pending.stopSignal {
            Self.stop(daemon: daemon, log: log, signal: stopSignal)
        } else if pending.reloadPending {
            _ = daemon.reload(trigger: "signal")
        }
        // The main thread parks here for good (the SIGTERM handler ends the process with exit)
        // instead of in dispatchMain(): dispatchMain() pthread_exits the main thread, and
        // AddressSanitizer then flags libdispatch's signal thread writing into the poisoned
        // stack of this frame (sigfillset in _dispatch_sigmask) on every SIGHUP and SIGTERM,
        // which made ASan unusable on the daemon. Nothing here uses the main queue.
        let parked = DispatchSemaphore(value: 0)
        withExtendedLifetime(signalSources) { parked.wait() }
        return ExitCode.success
    }

    /// Two listeners on one port, after flags override the config: a clear error before
    /// anything binds, rather than "address in use" from the second listener.
    static func listenerClash(_ options: PolicyDaemon.Options) -> String? {
        let settings = options.initial.settings
        let admin = options.adminListen ?? settings.adminListen.flatMap { try? ListenAddress.parse($0).get() }
        let proxyConfigured = ProxySettings.from(options.initial.policy).listen.flatMap { try? ListenAddress.parse($0).get() }
        let proxy = options.proxyListen ?? proxyConfigured
        // Sockets systemd passed were bound by systemd: their configured addresses do not bind.
        let activation = options.socketActivation
        let listeners = [
            ("listen", activation?.api == nil ? Optional(options.listen) : nil),
            ("admin listen", activation?.admin == nil ? admin : nil), ("proxy listen", activation?.proxy == nil ? proxy : nil),
        ]
        for (index, first) in listeners.enumerated() {
            for second in listeners.dropFirst(index + 1) {
                guard let a = first.1, let b = second.1, let clash = ListenAddress.clash(a, b) else { continue }
                return "the \(second.0) address \(b) \(clash) the \(first.0) address \(a)"
            }
        }
        return nil
    }

    /// Where the intake database lives when `intake.database` is not set.
    static var defaultIntakeDatabase: String {
        let dataDirectory = ProcessInfo.processInfo.environment["NAVPOLICY_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        return (dataDirectory ?? "var/navpolicyd") + "/intake.sqlite3"
    }

    /// Loads the intake token and opens the store; both failures stop start-up, because a
    /// daemon that silently accepts shares it cannot store, or without the auth it was
    /// told to require, is worse than one that does not start.
    private static func openIntake(_ settings: IntakeSettings) -> Result<PolicyDaemon.IntakeOptions, IntakeStoreError> {
        let token: AdminToken?
        switch AdminToken.load(environmentVariable: "NAVPOLICY_INTAKE_TOKEN", file: settings.tokenFile) {
        case .success(let loaded): token = loaded
        case .failure(let error): return .failure(IntakeStoreError(error.reason))
        }
        do {
            let store = try Self.intakeLocation(settings).openStore(settings)
            return .success(PolicyDaemon.IntakeOptions(store: store, settings: settings, token: token))
        } catch {
            return .failure(error)
        }
    }

    /// The intake store's location: `NAVPOLICY_INTAKE_DATABASE_URL`, `intake.database`, or the default file.
    private static func intakeLocation(_ settings: IntakeSettings) -> DatabaseLocation {
        DatabaseLocation.resolve(
            settings, environment: ProcessInfo.processInfo.environment, defaultPath: defaultIntakeDatabase)
    }

    /// Signals are turned into dispatch events: SIGHUP reloads, SIGTERM/SIGINT drain and exit.
    /// The returned sources must stay alive for as long as the signals should be handled.
    /// Signals arriving before the daemon runs are held by `startup` and carried out by the
    /// caller once the start returned.
    private static func installSignalHandlers(
        daemon: PolicyDaemon, log: EventLog, startup: StartupSignals
    ) -> [any DispatchSourceSignal] {
        var sources: [any DispatchSourceSignal] = []
        let queue = DispatchQueue(label: "navpolicyd.signals")
        for signalNumber in [SIGHUP, SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                if signalNumber == SIGHUP {
                    if startup.reloadRequested() == .handleNow { _ = daemon.reload(trigger: "signal") }
                    return
                }
                if startup.stopRequested(signalNumber) == .handleNow {
                    stop(daemon: daemon, log: log, signal: signalNumber)
                }
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }

    /// SIGTERM/SIGINT: drain every listener and exit.
    private static func stop(daemon: PolicyDaemon, log: EventLog, signal signalNumber: Int32) -> Never {
        log.log(.info, "shutdown.started", ["signal": .string(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")])
        daemon.shutdown()
        log.log(.info, "shutdown.finished")
        exit(ExitCode.success)
    }
}
