import Foundation
package import PolicyService

/// `navpolicyd serve`: the HTTP daemon.
package struct ServeCommand: ParsableCommand {
    static let decisionLog = Option.text(
        "decision-log", "FILE", kind: .file, help: "append one NDJSON line per decision (written off the request path)")
    static let adminTokenFile = Option.text(
        "admin-token-file", "FILE", kind: .file, help: "bearer token for /v1/policy/reload ($NAVPOLICY_ADMIN_TOKEN wins)")
    static let extAuthzPathPrefix = Option.text(
        "ext-authz-path-prefix", "PREFIX", kind: .text,
        help:
            "what Envoy's http_service.path_prefix puts before each original path (/authz in deploy/envoy); a check "
            + "whose path does not start with it and / is refused (extAuthz.pathPrefix; see docs/envoy.md)")
    static let logLevel = Option.text(
        "log-level", "LEVEL", kind: .choice(EventLog.Level.allCases.map(\.rawValue)),
        help: "the least severe event written to stderr: debug, info, warning or error", default: EventLog.Level.info.rawValue)

    /// The option that sets a listener's address, from its kind's flag (``ListenFlag``).
    static func listenOption(_ flag: ListenFlag) -> Option<String> {
        Option.text(flag.name, "HOST:PORT", kind: .address, help: flag.help)
    }

    package static let declaration = declaring(
        listenFlags: ListenFlag.registered, socketNames: SocketActivation.listenerNames)

    /// `serve` with a listen option per flag of `listenFlags`, in their order, after the config
    /// options, and `socketNames` as the names systemd's sockets may carry: both the registered
    /// listener kinds'.
    static func declaring(listenFlags: [ListenFlag], socketNames: [String]) -> CommandDeclaration {
        CommandDeclaration(
            name: "serve",
            summary: "Run the HTTP daemon (decisions, policy, health and metrics endpoints)",
            // The route list comes from the route declarations, so a new endpoint shows up here by itself.
            discussion: """
                Listens on 127.0.0.1:8080 unless --listen or the config's server.listen says otherwise,
                and serves these routes (with --admin-listen, /v1/policy, its reload and diff, /metrics
                and the status routes move to the admin listener; docs/api.md has the table):
                \(RouteDeclaration.helpList)
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
                \(socketNames.joined(separator: ", "))) are served instead of binding
                (deploy/systemd/navpolicyd.socket).

                Exit status: 0 after a clean shutdown; 2 when the config, flags or address are invalid.
                """,
            options: ConfigOptions.declarations + listenFlags.map { listenOption($0).declaration } + [
                extAuthzPathPrefix.declaration, decisionLog.declaration, adminTokenFile.declaration, logLevel.declaration,
            ])
    }

    package var configPath: String?
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    /// The listener address flags as typed, keyed by their spelling (`--proxy-listen`).
    package var listenFlags: [String: String] = [:]
    /// `--ext-authz-path-prefix` as typed; checked by ``validate()``.
    package var extAuthzPathPrefix: String?
    package var decisionLogPath: String?
    package var adminTokenFilePath: String?
    package var logLevel: EventLog.Level

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        for flag in ListenFlag.registered {
            listenFlags[flag.spelling] = arguments[Self.listenOption(flag)]
        }
        extAuthzPathPrefix = arguments[Self.extAuthzPathPrefix]
        decisionLogPath = arguments[Self.decisionLog]
        adminTokenFilePath = arguments[Self.adminTokenFile]
        logLevel = arguments[Self.logLevel].flatMap(EventLog.Level.init(rawValue:)) ?? .info
    }

    /// The size cap's value (flag or environment) is checked before anything runs.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
        if let prefix = extAuthzPathPrefix, let problem = ExtAuthzSettings.pathPrefixProblem(prefix) {
            throw .invalidValue("--ext-authz-path-prefix \"\(prefix)\": \(problem)")
        }
    }

    /// Resolves the configuration, builds the daemon, starts it and waits for a signal.
    package func run(_ output: Output) -> Int32 {
        DaemonSignals.unblockInheritedMask()
        let log = EventLog.standardError.filtered(from: logLevel)
        guard let configuration = resolveConfiguration(output) else { return ExitCode.usage }
        let daemon: PolicyDaemon
        do {
            daemon = try PolicyDaemon(configuration: configuration, log: log)
        } catch {
            output.err("navpolicyd serve: --decision-log: \(error)")
            return ExitCode.usage
        }
        let signals = DaemonSignals(daemon: daemon, log: log)
        do {
            try daemon.start()
        } catch {
            output.err("navpolicyd serve: cannot start on \(configuration.apiAddress): \(error)")
            return ExitCode.usage
        }
        signals.daemonRunning()
        signals.park()
        return ExitCode.success
    }

    /// The config file compiled and everything else resolved over it, or nil after reporting
    /// why the daemon cannot start.
    private func resolveConfiguration(_ output: Output) -> DaemonConfiguration? {
        let configPath = ConfigLoader.resolvePath(flag: configPath)
        let initial: PolicySnapshot
        do throws(ConfigLoader.LoadError) {
            switch PolicySnapshot.build(from: try ConfigLoader.read(configPath, maxBytes: maxConfigBytes)) {
            case .success(let snapshot): initial = snapshot
            case .failure(let error): throw ConfigLoader.LoadError.invalid(path: configPath, error)
            }
        } catch {
            ConfigLoader.report(error, to: output)
            return nil
        }
        let inputs = DaemonConfiguration.Inputs(
            configPath: configPath, maxConfigBytes: maxConfigBytes, initial: initial, listenFlags: listenFlags,
            extAuthzPathPrefix: extAuthzPathPrefix, decisionLogPath: decisionLogPath, adminTokenFile: adminTokenFilePath,
            version: CommandLineTool.version,
            environment: ProcessInfo.processInfo.environment)
        switch DaemonConfiguration.resolve(inputs) {
        case .success(let configuration): return configuration
        case .failure(let error):
            output.err("navpolicyd serve: \(error)")
            return nil
        }
    }
}
