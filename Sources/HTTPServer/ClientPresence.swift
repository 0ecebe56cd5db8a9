#if canImport(Glibc)
    import Glibc
#endif

/// Whether the client of a suspended request is still there to read its answer
/// (``HTTPResponderResult/deferredWatchingClient(_:)``).
///
/// libmicrohttpd neither reads nor polls a suspended connection, so it learns of a client that
/// closed only once the connection is resumed: `MHD_OPTION_NOTIFY_COMPLETED` with
/// `MHD_REQUEST_TERMINATED_CLIENT_ABORT` comes after the work, too late to stop it. A responder
/// doing long work asks this instead, now and then; each ask is one `poll` with no wait.
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

    /// `POLLRDHUP` (Linux): the peer shut down its writing side. Not in Glibc's Swift module,
    /// which is imported without `_GNU_SOURCE`.
    private static let peerHangUp = Int16(0x2000)

    /// Whether the peer of `socket` closed or reset the connection; reads nothing (a byte a
    /// pipelining client already sent stays for MHD).
    static func peerClosed(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | peerHangUp, revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        let gone = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL) | peerHangUp
        if descriptor.revents & gone != 0 { return true }
        // Readable without a hang-up flag: end of stream only when a peek reads nothing.
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }
}
