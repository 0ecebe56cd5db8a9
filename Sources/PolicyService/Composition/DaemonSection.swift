package import NavigationPolicy
import PolicySections
import ShareIntake

/// One top-level config section the daemon reads beside the chain, declared once: the policy
/// compiler validates it with the chain (``config``), `validate` lists its effective settings,
/// and a reload warns when it changes a section only a restart applies.
///
/// The daemon's own sections are ``daemon``; a listener kind brings its own
/// (``ListenerKind/sections``), so ``all(for:)`` is every section the daemon accepts.
package struct DaemonSection: Sendable {
    /// What a reload that changes the section logs: the section is read once, at start.
    struct RestartWarning: Sendable, Equatable {
        /// The event name (`policy.proxy_settings_changed`).
        let event: String
        /// What it means for the operator.
        let detail: String
    }

    /// The name and validator, as the policy compiler is told them.
    let config: ConfigSection
    /// Nil when a reload applies the section (`decisionLog`).
    let restartWarning: RestartWarning?
    /// The section's settings as `policy` has them, defaults included (the defaults without a
    /// policy): what `validate` lists, by reflection.
    package let settings: @Sendable (CompiledPolicy?) -> any Sendable
    /// Whether `active` reads the section differently from `initial`.
    let differs: @Sendable (_ initial: CompiledPolicy?, _ active: CompiledPolicy) -> Bool

    /// The top-level key.
    package var name: String { config.name }

    /// The section `name`, decoded into `Settings`; `restartWarning` as the reload logs it.
    init<Settings: SectionSettings>(_ name: String, as _: Settings.Type, restartWarning: RestartWarning?) {
        config = ConfigSection(name: name) { section, diagnostics in
            _ = Settings.decode(section, diagnostics: &diagnostics)
        }
        self.restartWarning = restartWarning
        settings = { policy in policy.map(Settings.from) ?? Settings() }
        differs = { initial, active in (initial.map(Settings.from) ?? Settings()) != Settings.from(active) }
    }

    /// A restart-only section's warning: `event`, and that the section applies after a restart.
    static func restartOnly(_ name: String, event: String) -> RestartWarning {
        RestartWarning(event: event, detail: "the \(name) section changed; it applies after a restart")
    }

    /// The sections every daemon reads, whichever listeners run: the limits every listener
    /// shares, the share intake and the decision log.
    static let daemon: [DaemonSection] = [.server, .intake, .decisionLog, .policySource]

    /// `server`: listener limits and deadlines, tokens, the bundle; built into the listeners at start.
    static let server = DaemonSection(
        "server", as: ServerSettings.self,
        restartWarning: RestartWarning(
            event: "policy.server_settings_changed",
            detail: "the server section changed; listener settings apply after a restart"))

    /// `intake`: the store is opened once, at start.
    static let intake = DaemonSection(
        "intake", as: IntakeSettings.self, restartWarning: restartOnly("intake", event: "policy.intake_settings_changed"))

    /// `decisionLog`: read from the active policy before each write, so a reload applies it.
    static let decisionLog = DaemonSection("decisionLog", as: DecisionLogSettings.self, restartWarning: nil)

    /// `policySource`: the poller is built once, at start (a reload polls it instead of
    /// re-reading the chain; docs/configuration.md).
    static let policySource = DaemonSection(
        "policySource", as: PolicySourceSettings.self,
        restartWarning: restartOnly("policySource", event: "policy.policy_source_settings_changed"))

    /// Every section the daemon accepts: its own and the registered listener kinds'.
    package static let registered = all(for: ListenerKind.all)

    /// Every section the daemon accepts with `kinds` registered: its own, then each kind's in
    /// registration order (a section two kinds share, such as `extAuthz`, once).
    static func all(for kinds: [ListenerKind]) -> [DaemonSection] {
        var sections = daemon
        for section in kinds.flatMap({ $0.sections }) where !sections.contains(where: { $0.name == section.name }) {
            sections.append(section)
        }
        return sections
    }
}

/// The settings one section decodes into: what ``DaemonSection`` needs to validate the section,
/// read it from a compiled policy and compare two policies' readings of it.
protocol SectionSettings: Sendable, Equatable {
    /// The defaults, as an absent section means them.
    init()
    /// Decodes the section, reporting every problem at its pointer.
    static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> Self
    /// The section as a compiled (so validated) policy has it; the defaults when it is absent.
    static func from(_ policy: CompiledPolicy) -> Self
}

extension ServerSettings: SectionSettings {}
extension IntakeSettings: SectionSettings {}
extension DecisionLogSettings: SectionSettings {}
extension ProxySettings: SectionSettings {}
extension ExtAuthzSettings: SectionSettings {}
extension PolicySourceSettings: SectionSettings {}
