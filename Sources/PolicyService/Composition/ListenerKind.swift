import NavigationPolicy

/// One kind of listener the daemon can run, declared once: its role, its flag, where its
/// address comes from, how clash messages name it, the config sections it brings, and how it
/// is built.
///
/// ``all`` is the registration, and everything about listeners is derived from it: its order
/// is the order in which the daemon resolves, starts, reports and drains its listeners; its
/// roles are the names systemd's sockets may carry (`FileDescriptorName=`); its flags are
/// `serve`'s listen options (``ListenFlag/registered``); its sections are the ones the policy
/// compiler accepts, `validate` lists and a reload compares (``DaemonSection/all(for:)``).
/// docs/architecture.md ("Adding a listener") shows how to add one.
struct ListenerKind: Sendable {
    /// Names the listener in logs, on the status page and in `FileDescriptorName=`.
    let role: String
    /// The command-line flag that overrides the configured address (`--proxy-listen`); nil
    /// when only the config sets it.
    let flag: ListenFlag?
    /// How a clash message names the listener ("proxy listen").
    let clashName: String
    /// The address the config gives it, as written; nil = the listener does not run unless a
    /// flag or a passed socket asks for it. The config was validated, so the text parses.
    let configured: @Sendable (PolicySnapshot) -> String?
    /// The config sections the kind brings (`proxy`): the policy compiler validates them with
    /// the chain (``ServerSettings/compiler``).
    var sections: [DaemonSection] = []
    /// Builds the listener at the context's endpoint (not started).
    let make: @Sendable (ListenerContext) -> Listener

    /// Every kind, in start order. The first is the API listener: it always runs, and it labels
    /// the sockets systemd passed to the others without an address.
    static let all: [ListenerKind] = [.api, .admin, .proxy, .extAuthz, .extAuthzGRPC]
}
