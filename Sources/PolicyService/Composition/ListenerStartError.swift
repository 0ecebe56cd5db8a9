/// Why ``PolicyDaemon/start()`` failed: one listener's server could not start, with that
/// server's own error (``HTTPServerError`` for an HTTP listener, ``GRPCServerError`` for the
/// gRPC one), so no server's failures are bent into another's kinds.
public struct ListenerStartError: Error, CustomStringConvertible {
    /// The listener's role (`api`, `proxy`, `ext-authz-grpc`, …).
    public let role: String
    /// The server's error.
    public let reason: any Error
    /// How the listener names itself before the reason (``Listener/startFailureLabel``).
    let label: String?

    /// The reason, after the listener's label when it has one: what `serve` prints.
    public var description: String { label.map { "\($0): \(reason)" } ?? "\(reason)" }
}
