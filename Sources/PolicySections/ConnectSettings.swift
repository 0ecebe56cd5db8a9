import JSONSupport
public import NavigationPolicy

/// `proxy.connect`: how the forward proxy carries HTTPS (`CONNECT host:port`) — which ports,
/// and the bounds on each tunnel (docs/proxy.md, "HTTPS: CONNECT tunnels").
public struct ConnectSettings: Sendable, Equatable {
    /// The only ports a `CONNECT` may name; any other gets 403 `connect-port-refused`.
    /// HTTPS only by default: a tunnel to port 25 or 22 would carry anything.
    public var ports: [Int] = [443]
    /// How long after `200 Connection established` the client has to send its whole
    /// ClientHello (slowloris on the tunnel's first bytes).
    public var clientHelloTimeoutMilliseconds = 10_000
    /// An established tunnel silent both ways this long is closed.
    public var idleTimeoutSeconds = 300
    /// Tunnels open at once, in all; past it a `CONNECT` gets 503 `tunnel-limit`.
    public var maxTunnels = 1024
    /// Tunnels open at once from one client address; past it 429 `tunnel-limit`.
    public var maxTunnelsPerIP = 128

    public init() {}

    package static let keys = ["ports", "clientHelloTimeoutMilliseconds", "idleTimeoutSeconds", "maxTunnels", "maxTunnelsPerIP"]

    /// Decodes `proxy.connect`, reporting every problem at its pointer.
    public static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ConnectSettings {
        section.checkKeys(allowed: keys, diagnostics: &diagnostics)
        var settings = ConnectSettings()
        if let value = section.object["ports"] {
            if case .array(let elements) = value, !elements.isEmpty {
                var ports: [Int] = []
                for (index, element) in elements.enumerated() {
                    guard let port = element.integerValue, (1...65_535).contains(port) else {
                        diagnostics.report(section.pointer(to: "ports", index), "expected a port number 1...65535")
                        continue
                    }
                    if !ports.contains(port) { ports.append(port) }
                }
                settings.ports = ports
            } else {
                diagnostics.report(section.pointer.appending("ports"), "expected a non-empty array of port numbers such as [443]")
            }
        }
        func integer(_ key: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) {
            if let value = section.integer(key, in: range, diagnostics: &diagnostics) { apply(value) }
        }
        integer("clientHelloTimeoutMilliseconds", 1...600_000) { settings.clientHelloTimeoutMilliseconds = $0 }
        integer("idleTimeoutSeconds", 1...86_400) { settings.idleTimeoutSeconds = $0 }
        integer("maxTunnels", 1...1_000_000) { settings.maxTunnels = $0 }
        integer("maxTunnelsPerIP", 1...1_000_000) { settings.maxTunnelsPerIP = $0 }
        return settings
    }
}
