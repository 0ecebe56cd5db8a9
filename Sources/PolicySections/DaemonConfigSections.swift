import JSONSupport
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
        checkListenerClashes, PolicySourceSettings.checkNoLocalChain,
    ]

    /// A compiler that accepts and checks every section and the checks across them: the
    /// daemon's, without the daemon.
    public static var compiler: PolicyCompiler {
        var compiler = PolicyCompiler(sections: all)
        compiler.documentValidators = documentValidators
        return compiler
    }

    /// A config member that holds a listen address, and the address the daemon binds when the
    /// member is absent (nil: no listener then).
    public struct ListenMember: Sendable {
        /// The section (`server`).
        public let section: String
        /// The member in it (`adminListen`).
        public let member: String
        /// The address bound when the member is absent, or nil.
        public let fallback: String?

        /// `section.member`, as messages name it.
        public var name: String { section + "." + member }
    }

    /// Every listen address a config can set. The daemon's listener kinds read their addresses
    /// from these members (`ListenerKind.configured`; a PolicyServiceTests check holds each
    /// kind to its entry), so `validate` sees the clashes `serve` would refuse.
    public static let listenMembers = [
        ListenMember(section: "server", member: "listen", fallback: ServerSettings().listen),
        ListenMember(section: "server", member: "adminListen", fallback: nil),
        ListenMember(section: "proxy", member: "listen", fallback: nil),
        ListenMember(section: "extAuthz", member: "listen", fallback: nil),
        ListenMember(section: "extAuthz", member: "grpcListen", fallback: nil),
    ]

    /// No two listen addresses of the document may bind the same port (or a wildcard over
    /// it): the second bind would fail at start, after the config was accepted. The check
    /// `serve` runs over the resolved listeners (flags applied) is the same `ListenAddress.clash`.
    public static func checkListenerClashes(_ root: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        var seen: [(member: ListenMember, text: String, address: ListenAddress)] = []
        for member in listenMembers {
            let configured = root.object[member.section]?.objectValue?[member.member]?.stringValue
            guard let text = configured ?? member.fallback, let address = validAddress(text) else { continue }
            for earlier in seen {
                guard let clash = ListenAddress.clash(address, earlier.address) else { continue }
                diagnostics.report(
                    root.pointer.appending(member.section).appending(member.member),
                    "\"\(text)\" \(clash) \(earlier.member.name) \"\(earlier.text)\"")
                break
            }
            seen.append((member, text, address))
        }
    }
}

/// A listen address as the whole-document check sees it: nil when the text does not parse,
/// which the section's own validator reports at its pointer (so no clash is claimed on top).
private func validAddress(_ text: String) -> ListenAddress? {
    guard case .success(let address) = ListenAddress.parse(text) else { return nil }
    return address
}
