import NavigationPolicy

/// The config sections a running daemon was built from and that a reload cannot change: the
/// listeners, the intake store, the proxy and the ext_authz services are built once at start.
/// Which sections these are is declared with each section (``DaemonSection/restartWarning``).
///
/// A reload still swaps the chain; it compares these with the new snapshot and warns about
/// each changed section, so an operator knows a restart is due.
struct RestartOnlySettings: Sendable {
    /// The policy the daemon was built from; nil = the defaults.
    private let initial: CompiledPolicy?
    /// The sections a reload cannot change, in the order their warnings are logged.
    private let sections: [DaemonSection]

    /// The sections as `snapshot` has them (the defaults without one), among `sections`.
    init(_ snapshot: PolicySnapshot?, sections: [DaemonSection] = DaemonSection.registered) {
        self.init(policy: snapshot?.policy, sections: sections)
    }

    /// The restart-only ones of `sections` as `policy` has them (the defaults without one).
    init(policy: CompiledPolicy?, sections: [DaemonSection]) {
        initial = policy
        self.sections = sections.filter { $0.restartWarning != nil }
    }

    /// One warning per section that `active` changes: its event name and what it means.
    func changes(in active: PolicySnapshot) -> [(event: String, detail: String)] {
        changes(inPolicy: active.policy)
    }

    /// One warning per section that `active` changes, in the sections' order.
    func changes(inPolicy active: CompiledPolicy) -> [(event: String, detail: String)] {
        sections.compactMap { section in
            guard let warning = section.restartWarning, section.differs(initial, active) else { return nil }
            return (warning.event, warning.detail)
        }
    }
}
