import NavigationPolicy
import ShareIntake

/// The config sections a running daemon was built from and that a reload cannot change: the
/// listeners, the intake store, the proxy and the ext_authz services are built once at start.
///
/// A reload still swaps the chain; it compares these with the new snapshot and warns about
/// each changed section, so an operator knows a restart is due.
struct RestartOnlySettings: Sendable, Equatable {
    var server: ServerSettings
    var intake: IntakeSettings
    var proxy: ProxySettings
    var extAuthz: ExtAuthzSettings

    /// The sections as `snapshot` has them (the defaults without one).
    init(_ snapshot: PolicySnapshot?, intake: IntakeSettings? = nil) {
        server = snapshot?.settings ?? ServerSettings()
        self.intake = intake ?? snapshot.map { IntakeSettings.from($0.policy) } ?? IntakeSettings()
        proxy = snapshot.map { ProxySettings.from($0.policy) } ?? ProxySettings()
        extAuthz = snapshot.map { ExtAuthzSettings.from($0.policy) } ?? ExtAuthzSettings()
    }

    /// One warning per section that `active` changes: its event name and what it means.
    func changes(in active: PolicySnapshot) -> [(event: String, detail: String)] {
        var changes: [(event: String, detail: String)] = []
        if active.settings != server {
            changes.append(
                ("policy.server_settings_changed", "the server section changed; listener settings apply after a restart"))
        }
        if IntakeSettings.from(active.policy) != intake {
            changes.append(("policy.intake_settings_changed", "the intake section changed; it applies after a restart"))
        }
        if ProxySettings.from(active.policy) != proxy {
            changes.append(("policy.proxy_settings_changed", "the proxy section changed; it applies after a restart"))
        }
        if ExtAuthzSettings.from(active.policy) != extAuthz {
            changes.append(
                ("policy.ext_authz_settings_changed", "the extAuthz section changed; it applies after a restart"))
        }
        return changes
    }
}
