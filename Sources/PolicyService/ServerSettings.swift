public import NavigationPolicy
import ShareIntake

/// The `server` section of the config: how the daemon listens and protects itself.
///
/// Read at start-up; listener settings cannot change under a running server, so a reload
/// that changes them is applied to the chain only and logged as needing a restart.
public struct ServerSettings: Sendable, Equatable {
    /// `HOST:PORT` to listen on; loopback unless told otherwise. `--listen` overrides it.
    public var listen = "127.0.0.1:8080"
    /// MHD worker threads; 0 = one per core.
    public var threads = 0
    /// Connections open at once, in total and from one IP address.
    public var connectionLimit = 1024
    /// 0 = unlimited. The daemon binds loopback and usually sits behind a proxy or ingress
    /// where every client shares one address, so a per-address cap would just be a smaller
    /// global one; set it when clients connect directly from untrusted networks.
    public var perIPConnectionLimit = 0
    /// Idle connections are closed after this long (also bounds slow clients).
    public var idleTimeoutSeconds = 30
    /// Memory for one connection's request line and headers. Heads within 8 KiB of target
    /// and 16 KiB of headers get problem+json 414/431 from the server; libmicrohttpd zeroes
    /// this pool after every request, so larger values cost throughput (64 KiB: about 15%).
    public var connectionMemoryLimitBytes = 32_768
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

    public init() {}

    static let keys = [
        "listen", "threads", "connectionLimit", "perIPConnectionLimit", "idleTimeoutSeconds", "connectionMemoryLimitBytes",
        "drainTimeoutSeconds", "requireTokenForDecide", "adminTokenFile", "watchConfig", "watchIntervalMilliseconds",
    ]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ServerSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = ServerSettings()
        if let listen = section.string("listen", diagnostics: &diagnostics) {
            switch ListenAddress.parse(listen) {
            case .success: settings.listen = listen
            case .failure(let error): diagnostics.report(section.pointer.appending("listen"), "\"\(listen)\": \(error.reason)")
            }
        }
        func integer(_ key: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) {
            if let value = section.integer(key, in: range, diagnostics: &diagnostics) { apply(value) }
        }
        integer("threads", 0...256) { settings.threads = $0 }
        integer("connectionLimit", 1...100_000) { settings.connectionLimit = $0 }
        integer("perIPConnectionLimit", 0...100_000) { settings.perIPConnectionLimit = $0 }
        integer("idleTimeoutSeconds", 1...3600) { settings.idleTimeoutSeconds = $0 }
        integer("connectionMemoryLimitBytes", 16_384...1_048_576) { settings.connectionMemoryLimitBytes = $0 }
        integer("drainTimeoutSeconds", 0...600) { settings.drainTimeoutSeconds = $0 }
        integer("watchIntervalMilliseconds", 100...60_000) { settings.watchIntervalMilliseconds = $0 }
        if let flag = section.bool("requireTokenForDecide", diagnostics: &diagnostics) { settings.requireTokenForDecide = flag }
        if let flag = section.bool("watchConfig", diagnostics: &diagnostics) { settings.watchConfig = flag }
        if let path = section.string("adminTokenFile", diagnostics: &diagnostics) {
            if path.isEmpty {
                diagnostics.report(section.pointer.appending("adminTokenFile"), "empty path")
            } else {
                settings.adminTokenFile = path
            }
        }
        return settings
    }

    /// Reads the settings from a compiled policy's `server` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> ServerSettings {
        guard let section = policy.sections["server"]?.objectValue else { return ServerSettings() }
        var diagnostics = ConfigDiagnostics()
        // The section was validated when the policy compiled, so no issues can appear here.
        return decode(ConfigObject(section, at: .root.appending("server")), diagnostics: &diagnostics)
    }

    /// A compiler that validates the `server` section with the chain.
    public static let compiler = PolicyCompiler(sectionValidators: [
        "server": { section, diagnostics in _ = ServerSettings.decode(section, diagnostics: &diagnostics) },
        "intake": IntakeSettings.validator,
        "proxy": { section, diagnostics in _ = ProxySettings.decode(section, diagnostics: &diagnostics) },
    ])
}

/// A `HOST:PORT` listen address: IPv4, `[IPv6]`, or `localhost`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func parse(_ text: String) -> Result<ListenAddress, PatternError> {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(PatternError("expected [IPv6]:PORT"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return .failure(PatternError("expected HOST:PORT")) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else { return .failure(PatternError("the port must be a number 0-65535")) }
        guard !host.isEmpty else { return .failure(PatternError("missing host (use 127.0.0.1 or 0.0.0.0)")) }
        let hostText = host == "localhost" ? "127.0.0.1" : String(host)
        guard isIPv4(hostText) || (hostText.contains(":") && hostText.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." })
        else { return .failure(PatternError("the host must be an IP address or localhost")) }
        return .success(ListenAddress(host: hostText, port: port))
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && UInt8(part) != nil }
    }
}
