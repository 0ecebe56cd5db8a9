public import NavigationPolicy

/// Every top-level section the daemon accepts beside the chain, with its validator, and the
/// checks that span them: what a core-only build (the WebAssembly engine, an app, a test)
/// gives ``PolicyCompiler`` to refuse exactly the configs `navpolicyd validate` and `serve`
/// refuse, from the same rules the daemon's settings are decoded with.
///
/// The daemon registers each section with what only it does (restart warnings, the listener
/// kinds that bring `proxy` and `extAuthz`); its compiler and ``compiler`` are held equal by
/// a differential test (PolicyServiceTests, `DaemonSectionParityTests`).
public enum DaemonConfigSections {
    /// `server`: listener limits and deadlines, tokens, the bundle.
    public static let server = ConfigSection(name: "server") { section, diagnostics in
        _ = ServerSettings.decode(section, diagnostics: &diagnostics)
    }
    /// `intake`: the share-intake store and its rules.
    public static let intake = ConfigSection(name: "intake") { section, diagnostics in
        _ = IntakeSettings.decode(section, diagnostics: &diagnostics)
    }
    /// `decisionLog`: the decision log's budget and redaction.
    public static let decisionLog = ConfigSection(name: "decisionLog") { section, diagnostics in
        _ = DecisionLogSettings.decode(section, diagnostics: &diagnostics)
    }
    /// `proxy`: the forward/reverse proxy listener.
    public static let proxy = ConfigSection(name: "proxy") { section, diagnostics in
        _ = ProxySettings.decode(section, diagnostics: &diagnostics)
    }
    /// `extAuthz`: Envoy external authorization (HTTP and gRPC).
    public static let extAuthz = ConfigSection(name: "extAuthz") { section, diagnostics in
        _ = ExtAuthzSettings.decode(section, diagnostics: &diagnostics)
    }

    /// `policySource`: the chain pulled from another server instead of this file's `handlers`.
    public static let policySource = ConfigSection(name: "policySource") { section, diagnostics in
        _ = PolicySourceSettings.decode(section, diagnostics: &diagnostics)
    }

    /// Every section, in the order the daemon registers them (its own, then its listener kinds').
    public static let all = [server, intake, decisionLog, policySource, proxy, extAuthz]

    /// The checks over the whole document, run after the sections' own.
    public static let documentValidators: [PolicyCompiler.SectionValidator] = [
        checkProxyListenerClash, PolicySourceSettings.checkNoLocalChain,
    ]

    /// A compiler that accepts and checks every section and the checks across them: the
    /// daemon's, without the daemon.
    public static var compiler: PolicyCompiler {
        var compiler = PolicyCompiler(sections: all)
        compiler.documentValidators = documentValidators
        return compiler
    }

    /// `proxy.listen` must not take the port of `server.listen` or `server.adminListen`:
    /// the second bind would fail at start, after the config was accepted.
    public static func checkProxyListenerClash(_ root: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        guard let proxyText = root.object["proxy"]?.objectValue?["listen"]?.stringValue,
            let proxy = validAddress(proxyText)
        else { return }
        let server = root.object["server"]?.objectValue
        let listeners = [
            ("server.listen", server?["listen"]?.stringValue ?? ServerSettings().listen),
            ("server.adminListen", server?["adminListen"]?.stringValue),
        ]
        for case (let name, let text?) in listeners {
            guard let address = validAddress(text), let clash = ListenAddress.clash(proxy, address) else {
                continue
            }
            diagnostics.report(
                root.pointer.appending("proxy").appending("listen"), "\"\(proxyText)\" \(clash) \(name) \"\(text)\"")
        }
    }
}

/// A listen address as the whole-document check sees it: nil when the text does not parse,
/// which the section's own validator reports at its pointer (so no clash is claimed on top).
private func validAddress(_ text: String) -> ListenAddress? {
    guard case .success(let address) = ListenAddress.parse(text) else { return nil }
    return address
}
