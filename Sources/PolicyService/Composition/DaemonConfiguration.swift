public import ShareIntake

/// Everything the daemon needs to start, resolved once from flags, environment and config by
/// ``resolve(_:)``: addresses parsed, flags applied over the config, clashes checked, systemd's
/// sockets bound to their listeners, tokens loaded and the intake store opened.
///
/// Nothing built from it reads a flag, an environment variable or an address string again.
public struct DaemonConfiguration: Sendable {
    /// One listener to run: its kind and where its socket comes from.
    struct ResolvedListener: Sendable {
        let kind: ListenerKind
        let endpoint: ListenerEndpoint
    }

    /// What the share-intake endpoints need besides the policy.
    public struct Intake: Sendable {
        /// The opened store.
        public var store: any IntakeStore
        /// The `intake` section the store was opened with.
        public var settings: IntakeSettings
        /// When set, every intake endpoint requires `Authorization: Bearer <token>`.
        public var token: AdminToken?
        /// Where the store lives, for the start-up log (a PostgreSQL password masked).
        public var location: DatabaseLocation
    }

    /// The config file reloads read.
    public let configPath: String
    /// Reloads refuse config files larger than this (`--max-config-bytes`).
    public let maxConfigBytes: Int
    /// The policy the daemon starts with.
    public let initial: PolicySnapshot
    /// The listeners to run, in start order; the first is the API listener.
    let listeners: [ResolvedListener]
    /// The API listener's address (with a passed socket, the address that labels it).
    public let apiAddress: ListenAddress
    /// Where decisions are logged (`--decision-log`), if anywhere.
    public let decisionLogPath: String?
    /// The admin token (`$NAVPOLICY_ADMIN_TOKEN`, `--admin-token-file` or `server.adminTokenFile`).
    public let adminToken: AdminToken?
    /// The version `/metrics` and the start-up log report.
    public let version: String
    /// Share intake; nil when `intake.enabled` is false (the endpoints answer 404).
    public let intake: Intake?
    /// Where `READY=1`, `RELOADING=1`, `STOPPING=1` and watchdog pings go (`$NOTIFY_SOCKET`).
    public let notifier: SystemdNotifier?
    /// Whether systemd passed listening sockets (`LISTEN_FDS`).
    public let socketActivated: Bool
    /// The ext_authz services' settings: the `extAuthz` section with `--ext-authz-path-prefix`
    /// over it. Built once, like the listeners ("restart-only": ``restartOnly`` keeps the
    /// section as written, so a reload warns only when the file changed).
    let extAuthz: ExtAuthzSettings
    /// The sections a reload cannot change, as the daemon was built from them.
    let restartOnly: RestartOnlySettings
}
