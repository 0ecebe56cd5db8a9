/// Whether the client of a suspended request is still there to read its answer
/// (``HTTPResponderResult/deferred(_:)``).
///
/// A transport may learn of a client that closed only once it answers (libmicrohttpd neither
/// reads nor polls a suspended connection: its abort notice comes after the work, too late to
/// stop it). A responder doing long work asks this instead, now and then; the transport says
/// how it tells (the HTTP/1.1 server: one `poll` with no wait).
public struct ClientPresence: Sendable {
    private let probe: @Sendable () -> Bool

    /// A presence read by `hasLeft` (tests, and front ends that cannot tell).
    public init(hasLeft: @escaping @Sendable () -> Bool) {
        probe = hasLeft
    }

    /// True once the client closed its side of the connection (or reset it), or once nobody
    /// waits for the answer any more (it was sent, or shutdown answered in its place). A
    /// client that half-closes after its request counts as gone, as nginx counts it.
    public var hasLeft: Bool { probe() }

    /// A client that never leaves, for callers with no connection to watch.
    public static let unknown = ClientPresence { false }
}
