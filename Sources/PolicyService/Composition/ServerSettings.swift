public import HTTPServer
public import NavigationPolicy
public import PolicySections

/// The daemon's config sections, decoded by the pure rules in PolicySections (which a core-only
/// build validates with too); here is what only the daemon does with them.
public typealias ServerSettings = PolicySections.ServerSettings
public typealias BundleSettings = PolicySections.BundleSettings
public typealias DecisionLogSettings = PolicySections.DecisionLogSettings
public typealias ProxySettings = PolicySections.ProxySettings
public typealias ConnectSettings = PolicySections.ConnectSettings
public typealias ExtAuthzSettings = PolicySections.ExtAuthzSettings
public typealias ListenAddress = PolicySections.ListenAddress
public typealias ListenAddressError = PolicySections.ListenAddressError

extension ServerSettings {
    /// The HTTP server configuration for a listener on `address` with these limits.
    public func httpConfiguration(
        address: ListenAddress, maxBodyBytes: Int = 65_536, bodyLimitsByPath: [String: Int] = [:],
        problemTypePrefix: String
    ) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: address.host, port: address.port,
            threadPoolSize: threads > 0 ? threads : HTTPServerConfiguration.onlineProcessorCount,
            connectionLimit: connectionLimit, perIPConnectionLimit: perIPConnectionLimit,
            perSubnetConnectionLimit: perSubnetConnectionLimit,
            connectionTimeoutSeconds: idleTimeoutSeconds, headTimeoutSeconds: headTimeoutSeconds,
            minBodyBytesPerSecond: minBodyBytesPerSecond, bodyRateGraceSeconds: bodyRateGraceSeconds,
            connectionMemoryLimitBytes: connectionMemoryLimitBytes, maxBodyBytes: maxBodyBytes,
            bodyLimitsByPath: bodyLimitsByPath, problemTypePrefix: problemTypePrefix)
    }

    /// The compiler the daemon and the commands read configs with: it accepts and validates,
    /// with the chain, every section of the registered listener kinds (``ListenerKind/all``).
    public static let compiler = compilerAccepting(ListenerKind.all)

    /// A compiler that accepts the daemon's own sections and those `kinds` bring
    /// (``DaemonSection/all(for:)``), each checked by its validator, and checks the listener
    /// addresses of the whole document against each other.
    static func compilerAccepting(_ kinds: [ListenerKind]) -> PolicyCompiler {
        var compiler = PolicyCompiler(sections: DaemonSection.all(for: kinds).map(\.config))
        compiler.documentValidators = DaemonConfigSections.documentValidators
        return compiler
    }

    /// ``compiler`` storing large `hosts` and `pathPrefixes` lists as sorted tables: what the
    /// daemon and the deciding commands load with (``PolicyCompiler/tableThreshold``).
    public static let decidingCompiler = compiler.storingLargeListsAsTables()
}
