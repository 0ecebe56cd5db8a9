import GRPCServer
import HTTPServer

/// What the daemon drives on every listener's server, whatever it speaks: libmicrohttpd's
/// ``HTTPServer`` for the HTTP listeners, ``GRPCServer`` (HTTP/2) for the ext_authz gRPC one.
/// ``PolicyDaemon`` starts, reports and drains them in one loop through these five members.
protocol ListenerServer: Sendable {
    /// Binds (or takes the inherited socket) and starts serving; returns the bound port.
    /// Throws the server's own start error (``HTTPServerError``, ``GRPCServerError``), which
    /// the daemon reports as a ``ListenerStartError`` naming the listener.
    func start() throws -> UInt16
    /// The bound port once started; nil before, and once it stopped serving.
    var boundPort: UInt16? { get }
    /// Connections open now (`/readyz` and the status page report the API listener's).
    var openConnections: Int { get }
    /// Refuses new connections at once; those open go on.
    func stopAccepting()
    /// Finishes what is in flight until `deadline`, then cuts what is left.
    func shutdown(until deadline: ContinuousClock.Instant)
}

extension HTTPServer: ListenerServer {}

extension GRPCServer: ListenerServer {}
