import JSONSupport
public import NavigationPolicy

/// The `proxy` section of the config: the forward/reverse proxy listener.
///
/// Read at start-up like `server`. The listener runs when `listen` is set here or
/// `serve --proxy-listen` is given.
public struct ProxySettings: Sendable, Equatable {
    /// Which requests the proxy decides.
    public enum Scope: String, Sendable, CaseIterable {
        /// Navigations only (`Sec-Fetch-Mode: navigate`, or no Fetch Metadata); subresources pass.
        case navigations
        /// Every request.
        case all
    }

    /// `HOST:PORT` of the proxy listener; nil = no proxy unless `--proxy-listen`.
    public var listen: String?
    public var decide = Scope.navigations
    /// `"host:port"` → IP address, like curl's `--resolve` (tests, local development).
    public var resolve: [(hostAndPort: String, address: String)] = []
    /// Reverse mode: where allowed origin-form requests go (`http://127.0.0.1:3000`).
    public var upstream: String?
    /// Reverse mode: the public origin requests are decided on (`https://app.example.com`).
    public var publicOrigin: String?
    public var connectTimeoutMilliseconds = 5_000
    public var timeoutMilliseconds = 30_000
    /// Largest origin response body relayed, 0 = no limit (bodies are streamed, so size
    /// costs no memory): a larger declared length gets 502, a body growing past it is cut.
    public var maxResponseBytes: ConfigInteger = 0
    /// Largest request body forwarded.
    public var maxRequestBodyBytes = 1 << 20
    /// Whether forwards may connect to internal addresses (loopback, unspecified, private,
    /// link-local) that the operator did not pin in `resolve` or `upstream`. Off: such a
    /// destination is refused (403) after resolution, whatever the request and the decision.
    public var allowInternalDestinations = false
    /// `connect`: HTTPS tunnels (`CONNECT`) on the forward proxy.
    public var connect = ConnectSettings()

    public init() {}

    public static func == (lhs: ProxySettings, rhs: ProxySettings) -> Bool {
        lhs.listen == rhs.listen && lhs.decide == rhs.decide && lhs.upstream == rhs.upstream
            && lhs.publicOrigin == rhs.publicOrigin && lhs.connectTimeoutMilliseconds == rhs.connectTimeoutMilliseconds
            && lhs.timeoutMilliseconds == rhs.timeoutMilliseconds && lhs.maxResponseBytes == rhs.maxResponseBytes
            && lhs.maxRequestBodyBytes == rhs.maxRequestBodyBytes
            && lhs.allowInternalDestinations == rhs.allowInternalDestinations && lhs.connect == rhs.connect
            && lhs.resolve.elementsEqual(rhs.resolve) { $0.hostAndPort == $1.hostAndPort && $0.address == $1.address }
    }

    package static let keys = [
        "listen", "decide", "resolve", "upstream", "publicOrigin", "connectTimeoutMilliseconds", "timeoutMilliseconds",
        "maxResponseBytes", "maxRequestBodyBytes", "allowInternalDestinations", "connect",
    ]

    /// Decodes the section, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ProxySettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = ProxySettings()
        if let listen = section.string("listen", diagnostics: &diagnostics) {
            switch ListenAddress.parse(listen) {
            case .success: settings.listen = listen
            case .failure(let error): diagnostics.report(section.pointer.appending("listen"), "\"\(listen)\": \(error.reason)")
            }
        }
        if let scope = section.string("decide", diagnostics: &diagnostics) {
            if let value = Scope.spelled(scope) {
                settings.decide = value
            } else {
                diagnostics.report(
                    section.pointer.appending("decide"),
                    "expected \"navigations\" or \"all\", not \"\(EchoedText.bounded(scope))\"")
            }
        }
        for key in ["upstream", "publicOrigin"] {
            guard let origin = section.string(key, diagnostics: &diagnostics) else { continue }
            guard let normalized = normalizedOrigin(origin) else {
                diagnostics.report(
                    section.pointer.appending(key),
                    "\"\(origin)\": expected an http or https origin such as https://app.example.com")
                continue
            }
            if key == "upstream" { settings.upstream = normalized } else { settings.publicOrigin = normalized }
        }
        if section.has("upstream") != section.has("publicOrigin") {
            diagnostics.report(section.pointer, "reverse mode needs both upstream and publicOrigin")
        }
        if let map = section.object("resolve", diagnostics: &diagnostics) {
            for member in map.object.members {
                let key = member.key
                let value = member.value
                guard case .string(let address) = value, !address.isEmpty, !address.contains(where: { $0 == "," || $0 == " " })
                else {
                    diagnostics.report(map.pointer.appending(key), "expected an IP address string")
                    continue
                }
                guard let colon = key.lastIndex(of: ":"), UInt16(key[key.index(after: colon)...]) != nil, colon != key.startIndex
                else {
                    diagnostics.report(map.pointer.appending(key), "the key must be HOST:PORT")
                    continue
                }
                settings.resolve.append((hostAndPort: key, address: address))
            }
        }
        func integer(_ key: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) {
            if let value = section.integer(key, in: range, diagnostics: &diagnostics) { apply(value) }
        }
        integer("connectTimeoutMilliseconds", 1...600_000) { settings.connectTimeoutMilliseconds = $0 }
        integer("timeoutMilliseconds", 1...3_600_000) { settings.timeoutMilliseconds = $0 }
        let responseBytes: ClosedRange<ConfigInteger> = 0...1 << 50
        if let value = section.integer("maxResponseBytes", in: responseBytes, diagnostics: &diagnostics) {
            settings.maxResponseBytes = value
        }
        integer("maxRequestBodyBytes", 0...1 << 30) { settings.maxRequestBodyBytes = $0 }
        if let allow = section.bool("allowInternalDestinations", diagnostics: &diagnostics) {
            settings.allowInternalDestinations = allow
        }
        if let connect = section.object("connect", diagnostics: &diagnostics) {
            settings.connect = ConnectSettings.decode(connect, diagnostics: &diagnostics)
        }
        return settings
    }

    /// `scheme://host[:port]` without a trailing slash, or nil when `text` is not an http(s) origin.
    package static func normalizedOrigin(_ text: String) -> String? {
        var origin = text
        while origin.hasSuffix("/") { origin.removeLast() }
        let lower = origin.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        let authority = origin.drop { $0 != ":" }.dropFirst(3)
        guard !authority.isEmpty, !authority.contains(where: { "/?#@\\ ".contains($0) }) else { return nil }
        return origin
    }

    /// Reads the settings from a compiled policy's `proxy` section (defaults when absent).
    public static func from(_ policy: CompiledPolicy) -> ProxySettings {
        guard let section = policy.sections["proxy"]?.objectValue else { return ProxySettings() }
        var diagnostics = ConfigDiagnostics()
        // Validated when the policy compiled (ServerSettings.compiler), so nothing is reported here.
        return decode(ConfigObject(section, at: .root.appending("proxy")), diagnostics: &diagnostics)
    }
}
