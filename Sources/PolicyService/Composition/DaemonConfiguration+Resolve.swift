import ShareIntake

extension DaemonConfiguration {
    /// What the command line and the environment say, before anything is resolved.
    public struct Inputs: Sendable {
        /// The config file, already read and compiled into `initial`.
        public var configPath: String
        /// The config size cap for reloads.
        public var maxConfigBytes: Int
        /// The policy compiled from `configPath`.
        public var initial: PolicySnapshot
        /// Listener address flags as typed, keyed by their spelling (`--proxy-listen`).
        public var listenFlags: [String: String]
        /// `--ext-authz-path-prefix`; wins over `extAuthz.pathPrefix`.
        public var extAuthzPathPrefix: String?
        /// `--decision-log`.
        public var decisionLogPath: String?
        /// `--admin-token-file`; wins over `server.adminTokenFile`.
        public var adminTokenFile: String?
        /// The daemon's version.
        public var version: String
        /// The process environment (systemd's variables, the data directory, the database URL).
        public var environment: [String: String]

        /// Collects the inputs; ``DaemonConfiguration/resolve(_:)`` checks them.
        public init(
            configPath: String, maxConfigBytes: Int, initial: PolicySnapshot, listenFlags: [String: String],
            extAuthzPathPrefix: String? = nil, decisionLogPath: String?, adminTokenFile: String?, version: String,
            environment: [String: String]
        ) {
            self.configPath = configPath
            self.maxConfigBytes = maxConfigBytes
            self.initial = initial
            self.listenFlags = listenFlags
            self.extAuthzPathPrefix = extAuthzPathPrefix
            self.decisionLogPath = decisionLogPath
            self.adminTokenFile = adminTokenFile
            self.version = version
            self.environment = environment
        }
    }

    /// Why the daemon cannot start with these inputs: the message names the flag, variable or
    /// setting to fix.
    public struct ResolutionError: Error, Sendable, CustomStringConvertible {
        /// The message, after `navpolicyd serve: `.
        public let description: String
    }

    /// Resolves `inputs` into the daemon's configuration, or the first reason it cannot start.
    ///
    /// Takes systemd's `LISTEN_*` variables out of the process environment once it has read
    /// them, so that processes the daemon starts do not take the sockets for theirs. Opens the
    /// intake store last, so a refused flag leaves no database file behind.
    public static func resolve(_ inputs: Inputs) -> Result<DaemonConfiguration, ResolutionError> {
        resolve(inputs, kinds: ListenerKind.all)
    }

    /// ``resolve(_:)`` with `kinds` registered, in their order (the first is the API listener).
    static func resolve(_ inputs: Inputs, kinds: [ListenerKind]) -> Result<DaemonConfiguration, ResolutionError> {
        let activation: SocketActivation?
        switch SocketActivation.fromEnvironment(inputs.environment, names: kinds.map(\.role)) {
        case .success(let passed): activation = passed
        case .failure(let error): return .failure(ResolutionError(description: "socket activation: \(error)"))
        }
        if let shared = activation?.sharedSocket() {
            return .failure(ResolutionError(description: "socket activation: \(shared)"))
        }
        SocketActivation.clearEnvironment()
        let notifier: SystemdNotifier?
        switch SystemdNotifier.fromEnvironment(inputs.environment) {
        case .success(let found): notifier = found
        case .failure(let error): return .failure(ResolutionError(description: "\(error)"))
        }
        let listeners: [ResolvedListener]
        switch resolveListeners(inputs, kinds: kinds, activation: activation) {
        case .success(let resolved): listeners = resolved
        case .failure(let error): return .failure(error)
        }
        guard let api = listeners.first else { return .failure(ResolutionError(description: "no API listener")) }
        if let prefix = inputs.extAuthzPathPrefix, let problem = ExtAuthzSettings.pathPrefixProblem(prefix) {
            return .failure(ResolutionError(description: "--ext-authz-path-prefix \"\(prefix)\": \(problem)"))
        }
        let settings = inputs.initial.settings
        let adminToken: AdminToken?
        switch AdminToken.load(
            environmentVariable: "NAVPOLICY_ADMIN_TOKEN", file: inputs.adminTokenFile ?? settings.adminTokenFile)
        {
        case .success(let loaded): adminToken = loaded
        case .failure(let error): return .failure(ResolutionError(description: error.reason))
        }
        // intake.enabled false: no store, no data directory, no intake token; the endpoints answer 404.
        var intake: Intake?
        let intakeSettings = IntakeSettings.from(inputs.initial.policy)
        if intakeSettings.enabled {
            switch openIntake(intakeSettings, environment: inputs.environment) {
            case .success(let opened): intake = opened
            case .failure(let error): return .failure(ResolutionError(description: error.description))
            }
        }
        return .success(
            DaemonConfiguration(
                configPath: inputs.configPath, maxConfigBytes: inputs.maxConfigBytes, initial: inputs.initial,
                listeners: listeners, apiAddress: api.endpoint.address, decisionLogPath: inputs.decisionLogPath,
                adminToken: adminToken, version: inputs.version, intake: intake, notifier: notifier,
                socketActivated: activation != nil,
                extAuthz: ExtAuthzSettings.from(inputs.initial.policy).overriding(pathPrefix: inputs.extAuthzPathPrefix),
                restartOnly: RestartOnlySettings(inputs.initial, sections: DaemonSection.all(for: kinds))))
    }

    /// Each registered listener's endpoint: the flag's address over the config's, a passed
    /// socket over both (the address then only labels it), and no two bound on one port.
    static func resolveListeners(
        _ inputs: Inputs, kinds: [ListenerKind], activation: SocketActivation?
    ) -> Result<[ResolvedListener], ResolutionError> {
        var listeners: [ResolvedListener] = []
        for kind in kinds {
            let socket = activation?.socket(named: kind.role)
            let address: ListenAddress
            if let text = kind.flag.flatMap({ inputs.listenFlags[$0.spelling] }) ?? kind.configured(inputs.initial) {
                switch ListenAddress.parse(text) {
                case .success(let parsed): address = parsed
                case .failure(let error):
                    return .failure(
                        ResolutionError(description: "\(kind.flag?.spelling ?? kind.clashName) \(text): \(error.reason)"))
                }
            } else if socket != nil, let api = listeners.first {
                // A passed socket needs no address; the API listener's host labels it in logs.
                address = ListenAddress(host: api.endpoint.address.host, port: 0)
            } else {
                continue
            }
            listeners.append(ResolvedListener(kind: kind, endpoint: ListenerEndpoint(address: address, inheritedSocket: socket)))
        }
        // Two listeners on one port: a clear error before anything binds, rather than "address
        // in use" from the second. Sockets systemd passed were bound by systemd: they cannot clash.
        let binding = listeners.filter { $0.endpoint.inheritedSocket == nil }
        for (index, first) in binding.enumerated() {
            for second in binding.dropFirst(index + 1) {
                let (a, b) = (first.endpoint.address, second.endpoint.address)
                guard let clash = ListenAddress.clash(a, b) else { continue }
                return .failure(
                    ResolutionError(
                        description: "the \(second.kind.clashName) address \(b) \(clash) the \(first.kind.clashName) address \(a)"
                    ))
            }
        }
        return .success(listeners)
    }
}
