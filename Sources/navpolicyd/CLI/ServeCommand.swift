import Dispatch
import Foundation
import JSONSupport
import NavigationPolicy
import PolicyService
import ShareIntake

/// `navpolicyd serve`: the HTTP daemon.
enum ServeCommand {
    static let command = CommandLineTool.Command(
        name: "serve",
        summary: "Run the HTTP daemon (decisions, policy, health and metrics endpoints)",
        usage: """
            Usage: navpolicyd serve [--config FILE] [--listen HOST:PORT] [--decision-log FILE]
                                    [--admin-token-file FILE] [--proxy-listen HOST:PORT]
                                    [--admin-listen HOST:PORT]

            Serves GET/POST /v1/decide, GET /v1/policy, POST /v1/policy/reload, /healthz,
            /readyz, /metrics and the share intake (/v1/intake, /v1/intake/share-target,
            /v1/intake/{id}). Listens on 127.0.0.1:8080 unless --listen or the config's
            server.listen says otherwise.

            Options:
              --config FILE            policy file (default: $NAVPOLICY_CONFIG or config/navpolicy.json)
              --listen HOST:PORT       address to listen on (IPv4, [IPv6] or localhost; port 0 = any free port)
              --decision-log FILE      append one NDJSON line per decision (written off the request path)
              --admin-token-file FILE  bearer token for /v1/policy/reload ($NAVPOLICY_ADMIN_TOKEN wins)
              --proxy-listen HOST:PORT also run the enforcing forward/reverse proxy there (see docs/proxy.md)
              --admin-listen HOST:PORT serve /healthz, /readyz, /metrics, /v1/policy, reload and diff on a
                                       listener of their own (server.adminListen; see docs/operations.md)

            Reloads the policy on SIGHUP, when the config file changes, and on POST /v1/policy/reload;
            an invalid config is rejected and the running policy keeps serving.
            SIGTERM or SIGINT: refuse new connections, finish requests in flight on every listener
            together (server.drainTimeoutSeconds), exit 0.
            Logs are JSON lines on stderr.

            Share intake stores items in intake.database, by default intake.sqlite3 in the data
            directory ($NAVPOLICY_DATA_DIR, else var/navpolicyd under the working directory).
            With intake.enabled false no database is opened and the intake endpoints answer 404.
            $NAVPOLICY_INTAKE_TOKEN (or intake.tokenFile) requires a bearer token on every intake endpoint.

            Under systemd: READY=1, RELOADING=1 and STOPPING=1 go to $NOTIFY_SOCKET (Type=notify),
            WATCHDOG=1 every WATCHDOG_USEC/2, and sockets passed as LISTEN_FDS (FileDescriptorName=
            api, admin, proxy) are served instead of binding (deploy/systemd/navpolicyd.socket).

            Exit status: 0 after a clean shutdown; 2 when the config, flags or address are invalid.
            """,
        run: run)

    static let spec = ArgumentSpec(
        valueOptions: ["config", "listen", "decision-log", "admin-token-file", "proxy-listen", "admin-listen"], flagOptions: [])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        do throws(UsageError) {
            parsed = try spec.parse(arguments)
            guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        } catch {
            return CommandLineTool.usageFailure("serve", error, output: output)
        }
        let log = EventLog.standardError
        let configPath = ConfigLoader.resolvePath(flag: parsed.value("config"))
        let initial: PolicySnapshot
        do throws(ConfigLoader.LoadError) {
            switch PolicySnapshot.build(from: Array(try ConfigLoader.read(configPath))) {
            case .success(let snapshot): initial = snapshot
            case .failure(let error): throw ConfigLoader.LoadError.invalid(path: configPath, error)
            }
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        let listenText = parsed.value("listen") ?? initial.settings.listen
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
            file: parsed.value("admin-token-file") ?? initial.settings.adminTokenFile)
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
            switch openIntake(intakeSettings) {
            case .success(let options): intake = options
            case .failure(let error):
                output.err("navpolicyd serve: \(error.description)")
                return ExitCode.usage
            }
        }

        var options = PolicyDaemon.Options(
            configPath: configPath, initial: initial, listen: listen,
            decisionLogPath: parsed.value("decision-log"), adminToken: token, version: CommandLineTool.version,
            intake: intake)
        if let proxyText = parsed.value("proxy-listen") {
            switch ListenAddress.parse(proxyText) {
            case .success(let address): options.proxyListen = address
            case .failure(let error):
                output.err("navpolicyd serve: --proxy-listen \(proxyText): \(error.reason)")
                return ExitCode.usage
            }
        }
        if let adminText = parsed.value("admin-listen") {
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
        if let clash = listenerClash(options) {
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
        let port: UInt16
        do {
            port = try daemon.start()
        } catch {
            output.err("navpolicyd serve: cannot start on \(listen): \(error)")
            return ExitCode.usage
        }
        let bound = ListenAddress(host: listen.host, port: port)
        log.log(
            .info, "listening",
            [
                "address": .string(bound.description), "configPath": .string(configPath),
                "policyRevision": .string(initial.revision), "handlers": .number(Double(initial.policy.links.count)),
                "adminToken": .bool(token != nil), "intake": .bool(intake != nil), "version": .string(CommandLineTool.version),
                "socketActivated": .bool(options.socketActivation != nil), "systemdNotify": .bool(options.notifier != nil),
            ])
        let signalSources = installSignalHandlers(daemon: daemon, log: log)
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
        let path = settings.database ?? defaultIntakeDatabase
        do {
            try IntakeDataDirectory.prepare(databasePath: path)
            let store = try SQLiteIntakeStore(
                path: path, busyTimeoutMilliseconds: settings.busyTimeoutMilliseconds,
                groupCommit: settings.groupCommit)
            return .success(PolicyDaemon.IntakeOptions(store: store, settings: settings, token: token))
        } catch {
            return .failure(error)
        }
    }

    /// Signals are turned into dispatch events: SIGHUP reloads, SIGTERM/SIGINT drain and exit.
    /// The returned sources must stay alive for as long as the signals should be handled.
    private static func installSignalHandlers(daemon: PolicyDaemon, log: EventLog) -> [any DispatchSourceSignal] {
        var sources: [any DispatchSourceSignal] = []
        let queue = DispatchQueue(label: "navpolicyd.signals")
        for signalNumber in [SIGHUP, SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                if signalNumber == SIGHUP {
                    _ = daemon.reload(trigger: "signal")
                    return
                }
                log.log(.info, "shutdown.started", ["signal": .string(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")])
                daemon.shutdown()
                log.log(.info, "shutdown.finished")
                exit(ExitCode.success)
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
