import ConnectionSharing
import JSONSupport
public import NavigationPolicy

/// The `server` section of the config: how the daemon listens and protects itself.
///
/// Read at start-up; listener settings cannot change under a running server, so a reload
/// that changes them is applied to the chain only and logged as needing a restart.
public struct ServerSettings: Sendable, Equatable {
    /// `HOST:PORT` to listen on; loopback unless told otherwise. `--listen` overrides it.
    public var listen = ServerSettings.defaultListenAddress.description
    /// The API listener's address when neither the config nor `--listen` gives one.
    public static let defaultListenAddress = ListenAddress(host: "127.0.0.1", port: 8080)
    /// `HOST:PORT` of the admin listener (`/healthz`, `/readyz`, `/metrics`, `/v1/policy`,
    /// reload, diff), with its own connections, so probes and scrapes still get in when the
    /// API listener is saturated; nil = those endpoints are served on `listen`.
    /// `--admin-listen` overrides it.
    public var adminListen: String?
    /// MHD worker threads; 0 = one per core.
    public var threads = 0
    /// Connections open at once, per listener. High enough that one address at
    /// `perIPConnectionLimit` leaves most of them to everyone else.
    public var connectionLimit = 4096
    /// Connections one IP address may hold at once; 0 = unlimited. 256 keeps one host (a
    /// slowloris) from taking every slot, so health checks and other clients still get in.
    /// Behind a proxy or ingress every client shares the proxy's address, so this is also
    /// the most connections the proxy may open: raise it (or 0) for a proxy that opens
    /// more, and limit per client at the proxy. When not 0 it must be below
    /// `connectionLimit`; left out, it is 256 or a quarter of `connectionLimit` if less.
    public var perIPConnectionLimit = 256
    /// Connections one client network (IPv4 /24, IPv6 /64) may hold at once; 0 = unlimited.
    /// Left out, it is 1024 or half of `connectionLimit` if less (never below
    /// `perIPConnectionLimit`), and 0 when `perIPConnectionLimit` is 0 (a listener behind
    /// one proxy, whose address is every client's). When not 0 it must be below
    /// `connectionLimit` and not below `perIPConnectionLimit`.
    public var perSubnetConnectionLimit = 1024
    /// Idle connections are closed after this long. libmicrohttpd restarts this timer on
    /// every byte, so it does not bound slow clients; the two settings below do.
    public var idleTimeoutSeconds = 30
    /// Time for a complete request head (request line and headers): from the accept, or
    /// on keep-alive from the previous response plus `idleTimeoutSeconds`.
    public var headTimeoutSeconds = 10
    /// Slowest average body rate accepted after `bodyRateGraceSeconds`; 0 = no minimum.
    public var minBodyBytesPerSecond = 1024
    /// Seconds after the head before the body rate is enforced.
    public var bodyRateGraceSeconds = 5
    /// Memory for one connection's request line and headers. Heads within 8 KiB of target
    /// and 16 KiB of headers get problem+json 414/431 from the server; libmicrohttpd zeroes
    /// this pool after every request, so larger values cost throughput (64 KiB: about 15%).
    public var connectionMemoryLimitBytes = 32_768

    /// The smallest `connectionMemoryLimitBytes` the config accepts.
    ///
    /// Measured with libmicrohttpd 0.9.75: a GET with an 8192-byte target and 16 fields
    /// (16,345 header bytes) needs a pool of more than 24,576 bytes (28,672 suffice);
    /// the 4 KiB above that hold ≈ 60 more per-field records (64 bytes each).
    public static let minimumConnectionMemoryBytes = 32_768
    /// How long SIGTERM waits for in-flight requests before closing.
    public var drainTimeoutSeconds = 10
    /// Require the admin token on `/v1/decide` too (it is always required on reload when set).
    public var requireTokenForDecide = false
    /// A file holding the admin token (alternative to `NAVPOLICY_ADMIN_TOKEN`).
    public var adminTokenFile: String?
    /// Reload when the config file changes on disk.
    public var watchConfig = true
    /// How often the config file is checked, in milliseconds.
    public var watchIntervalMilliseconds = 1000
    /// `server.bundle`: caching and signing of `GET /v1/policy/bundle`.
    public var bundle = BundleSettings()

    public init() {}

    package static let keys = [
        "listen", "adminListen", "threads", "connectionLimit", "perIPConnectionLimit", "perSubnetConnectionLimit",
        "idleTimeoutSeconds", "headTimeoutSeconds",
        "minBodyBytesPerSecond", "bodyRateGraceSeconds", "connectionMemoryLimitBytes", "drainTimeoutSeconds",
        "requireTokenForDecide", "adminTokenFile", "watchConfig", "watchIntervalMilliseconds", "bundle",
    ]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ServerSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = ServerSettings()
        // Parsed once here; the admin address is checked against it (the default when `listen`
        // is absent or invalid, which is reported on its own).
        var apiAddress = defaultListenAddress
        if let listen = section.string("listen", diagnostics: &diagnostics) {
            switch ListenAddress.parse(listen) {
            case .success(let address):
                settings.listen = listen
                apiAddress = address
            case .failure(let error): diagnostics.report(section.pointer.appending("listen"), "\"\(listen)\": \(error.reason)")
            }
        }
        if let adminListen = section.string("adminListen", diagnostics: &diagnostics) {
            switch ListenAddress.parse(adminListen) {
            case .success(let admin):
                settings.adminListen = adminListen
                if let clash = ListenAddress.clash(admin, apiAddress) {
                    let message = "\"\(adminListen)\" \(clash) server.listen \"\(settings.listen)\""
                    diagnostics.report(section.pointer.appending("adminListen"), message)
                }
            case .failure(let error):
                diagnostics.report(section.pointer.appending("adminListen"), "\"\(adminListen)\": \(error.reason)")
            }
        }
        func integer(_ key: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) {
            if let value = section.integer(key, in: range, diagnostics: &diagnostics) { apply(value) }
        }
        integer("threads", 0...256) { settings.threads = $0 }
        integer("connectionLimit", 2...100_000) { settings.connectionLimit = $0 }
        decodeConnectionSharing(section, into: &settings, diagnostics: &diagnostics)
        integer("idleTimeoutSeconds", 1...3600) { settings.idleTimeoutSeconds = $0 }
        integer("headTimeoutSeconds", 1...3600) { settings.headTimeoutSeconds = $0 }
        integer("minBodyBytesPerSecond", 0...1_073_741_824) { settings.minBodyBytesPerSecond = $0 }
        integer("bodyRateGraceSeconds", 1...3600) { settings.bodyRateGraceSeconds = $0 }
        if let pool = section.integer("connectionMemoryLimitBytes", in: 0...1_048_576, diagnostics: &diagnostics) {
            if pool < Self.minimumConnectionMemoryBytes {
                diagnostics.report(
                    section.pointer.appending("connectionMemoryLimitBytes"),
                    "\(pool) is below the minimum \(Self.minimumConnectionMemoryBytes): the pool must hold a request head at "
                        + "the documented limits (8192-byte target, 16384 bytes of header fields) plus "
                        + "libmicrohttpd's per-field records, or such heads get its HTML 431 or no answer")
            } else {
                settings.connectionMemoryLimitBytes = pool
            }
        }
        integer("drainTimeoutSeconds", 0...600) { settings.drainTimeoutSeconds = $0 }
        integer("watchIntervalMilliseconds", 100...60_000) { settings.watchIntervalMilliseconds = $0 }
        if let flag = section.bool("requireTokenForDecide", diagnostics: &diagnostics) { settings.requireTokenForDecide = flag }
        if let flag = section.bool("watchConfig", diagnostics: &diagnostics) { settings.watchConfig = flag }
        if let path = section.path("adminTokenFile", diagnostics: &diagnostics) { settings.adminTokenFile = path }
        if let bundle = section.object("bundle", diagnostics: &diagnostics) {
            settings.bundle = BundleSettings.decode(bundle, diagnostics: &diagnostics)
        }
        return settings
    }

    /// `perIPConnectionLimit` and `perSubnetConnectionLimit`: the given values, checked
    /// against `connectionLimit` by the servers' own rule (``ConnectionSharingRule``), or defaults derived from it (a
    /// small `connectionLimit` alone is a valid config).
    private static func decodeConnectionSharing(
        _ section: ConfigObject, into settings: inout ServerSettings, diagnostics: inout ConfigDiagnostics
    ) {
        let total = settings.connectionLimit
        let perIP = section.integer("perIPConnectionLimit", in: 0...100_000, diagnostics: &diagnostics)
        let perSubnet = section.integer("perSubnetConnectionLimit", in: 0...100_000, diagnostics: &diagnostics)
        settings.perIPConnectionLimit = perIP ?? min(256, max(1, total / 4))
        settings.perSubnetConnectionLimit =
            perSubnet ?? (settings.perIPConnectionLimit == 0 ? 0 : max(settings.perIPConnectionLimit, min(1024, total / 2)))
        if let problem = ConnectionSharingRule.problem(
            connectionLimit: total, perIP: settings.perIPConnectionLimit, perSubnet: settings.perSubnetConnectionLimit)
        {
            diagnostics.report(section.pointer.appending(problem.setting), problem.message)
        }
    }

    /// Reads the settings from a compiled policy's `server` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> ServerSettings {
        guard let section = policy.sections["server"]?.objectValue else { return ServerSettings() }
        var diagnostics = ConfigDiagnostics()
        // The section was validated when the policy compiled, so no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("server")), diagnostics: &diagnostics)
    }
}
