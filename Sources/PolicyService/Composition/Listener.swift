/// One front end the daemon runs: a server at its endpoint, and what the daemon does around
/// it. ``PolicyDaemon`` starts, reports and drains a list of them in one loop.
struct Listener: Sendable {
    /// Names it in logs and on the status page (`api`, `admin`, `proxy`).
    let role: String
    /// Where its socket comes from.
    let endpoint: ListenerEndpoint
    /// The server, built but not started: an ``HTTPServer``, or the gRPC listener's HTTP/2 server.
    let server: any ListenerServer
    /// The event logged with the bound address once it listens (`proxy.listening`); nil when
    /// the daemon's own `listening` line reports it.
    let listeningEvent: String?
    /// Names the listener before its server's start error (`ext_authz gRPC listener: …`); nil
    /// when the error says enough (the HTTP listeners' name the address they could not bind).
    var startFailureLabel: String? = nil
    /// Runs once the server has shut down: the proxy ends the transfers still running (their
    /// bodies were cut when the server closed the connections).
    let finish: @Sendable () -> Void
}
