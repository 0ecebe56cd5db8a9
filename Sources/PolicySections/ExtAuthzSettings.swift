import JSONSupport
public import NavigationPolicy

/// The `extAuthz` section of the config: Envoy external authorization (docs/envoy.md).
///
/// Read at start-up like `proxy`. The HTTP service runs when `listen` is set here or
/// `serve --ext-authz-listen` is given; the gRPC `Check` service likewise with `grpcListen`
/// or `serve --ext-authz-grpc-listen`.
public struct ExtAuthzSettings: Sendable, Equatable {
    /// `HOST:PORT` of the HTTP service; nil = none unless `--ext-authz-listen`.
    public var listen: String?
    /// `HOST:PORT` of the gRPC `envoy.service.auth.v3.Authorization/Check` service; nil = none
    /// unless `--ext-authz-grpc-listen`.
    public var grpcListen: String?
    /// What Envoy's `http_service.path_prefix` puts before the original path; "" = none. The
    /// HTTP service removes it, and refuses (400) a request whose path does not start with it.
    /// `serve --ext-authz-path-prefix` wins over it (``overriding(pathPrefix:)``).
    public var pathPrefix = ""
    /// OPA-Envoy's dry run: every check is allowed; what the policy would have cancelled (the
    /// default decision included) is logged with `"dryRun":true`, counted in
    /// `navpolicyd_dry_run_cancels_total` and marked upstream with `x-navigation-dry-run: cancel`.
    /// Read at start, as the rest of the section (docs/envoy.md, "Dry run").
    public var dryRun = false

    public init() {}

    package static let keys = ["listen", "grpcListen", "pathPrefix", "dryRun"]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ExtAuthzSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = ExtAuthzSettings()
        for key in ["listen", "grpcListen"] {
            guard let text = section.string(key, diagnostics: &diagnostics) else { continue }
            switch ListenAddress.parse(text) {
            case .success: if key == "listen" { settings.listen = text } else { settings.grpcListen = text }
            case .failure(let error): diagnostics.report(section.pointer.appending(key), "\"\(text)\": \(error.reason)")
            }
        }
        if let listen = settings.listen, let grpc = settings.grpcListen, listen == grpc {
            diagnostics.report(
                section.pointer.appending("grpcListen"), "\"\(grpc)\" is also extAuthz.listen: each service needs its own port")
        }
        if let dryRun = section.bool("dryRun", diagnostics: &diagnostics) { settings.dryRun = dryRun }
        if let prefix = section.string("pathPrefix", diagnostics: &diagnostics) {
            if let problem = pathPrefixProblem(prefix) {
                diagnostics.report(section.pointer.appending("pathPrefix"), "\"\(prefix)\": \(problem)")
            } else {
                settings.pathPrefix = prefix
            }
        }
        return settings
    }

    /// Why `prefix` cannot be a path prefix, or nil when it can: "" or `/` followed by path
    /// bytes, without a trailing `/` (Envoy appends the original path, which starts with one).
    public static func pathPrefixProblem(_ prefix: String) -> String? {
        guard !prefix.isEmpty else { return nil }
        guard prefix.hasPrefix("/") else { return "must start with \"/\" (or be \"\" for none)" }
        guard !prefix.hasSuffix("/") else { return "must not end with \"/\": the original path brings its own" }
        guard prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else { return "must be printable ASCII without spaces, \"?\" or \"#\"" }
        return nil
    }

    /// The original origin-form target inside a path Envoy's HTTP client sent: `target` without
    /// ``pathPrefix``; nil when `target` does not start with the prefix followed by `/`, so a
    /// request that did not come through the configured filter is never decided on a guess.
    public func originalTarget(_ target: String) -> String? {
        guard !pathPrefix.isEmpty else { return target }
        // Bytes, not characters: a combining mark after the prefix must not change the match.
        guard target.utf8.starts(with: pathPrefix.utf8) else { return nil }
        let rest = target.utf8.dropFirst(pathPrefix.utf8.count)
        guard rest.first == UInt8(ascii: "/") else { return nil }
        return String(rest)
    }

    /// These settings with `serve --ext-authz-path-prefix` applied over the section's
    /// `pathPrefix`, as the listen flags win over `listen` and `grpcListen`; nil keeps the section's.
    public func overriding(pathPrefix flag: String?) -> ExtAuthzSettings {
        guard let flag else { return self }
        var settings = self
        settings.pathPrefix = flag
        return settings
    }

    /// Reads the settings from a compiled policy's `extAuthz` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> ExtAuthzSettings {
        guard let section = policy.sections["extAuthz"]?.objectValue else { return ExtAuthzSettings() }
        var diagnostics = ConfigDiagnostics()
        // Validated when the policy compiled (ServerSettings.compiler), so nothing is reported here.
        return decode(ConfigObject(section, at: .root.appending("extAuthz")), diagnostics: &diagnostics)
    }
}
