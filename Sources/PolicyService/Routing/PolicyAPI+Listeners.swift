/// The listeners that serve ``PolicyAPI``: the API listener, and the admin listener when
/// `server.adminListen` (or `--admin-listen`) asks for one.
extension ListenerKind {
    /// Decisions, authz, intake and the probes; everything when there is no admin listener.
    static let api = ListenerKind(
        role: "api", flag: "--listen", clashName: "listen", configured: { $0.settings.listen })

    /// Probes, metrics, the policy views, reload, diff and the status page, with connections
    /// of their own.
    static let admin = ListenerKind(
        role: "admin", flag: "--admin-listen", clashName: "admin listen", configured: { $0.settings.adminListen })
}
