import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A client connection a responder took over from the server (``HTTPResponderResult/takeOver(_:)``):
/// a `CONNECT` tunnel, whose bytes after the head are not HTTP.
///
/// libmicrohttpd 0.9.75 cannot tunnel (its upgrade mechanism sends only 101), so the server
/// suspends the connection after the head was parsed and validated, and hands the taker a
/// duplicate of its socket: MHD neither reads nor writes a suspended connection. The taker
/// ends it exactly once, with ``respond(_:)`` while it has written nothing (MHD then sends
/// that answer and closes), or with ``close()`` (MHD closes the socket without a word). Both
/// close the duplicate; later calls do nothing.
public final class TakenConnection: Sendable {
    /// The duplicate socket (non-blocking, like MHD's): valid until ``respond(_:)`` or ``close()``.
    public let socket: Int32
    /// The client's address as text ("127.0.0.1", "::1").
    public let remoteAddress: String
    /// Ends the connection (with an answer, or nil) and closes the duplicate socket.
    private let release: @Sendable (HTTPResponse?) -> Void
    private let transform: @Sendable (HTTPResponse) -> HTTPResponse
    private let ended = Atomic<Bool>(false)

    package init(
        socket: Int32, remoteAddress: String, transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse = { $0 },
        release: @escaping @Sendable (HTTPResponse?) -> Void
    ) {
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.transform = transform
        self.release = release
    }

    /// This connection with `next` applied to the answer given to ``respond(_:)``
    /// (``HTTPResponderResult/map(_:)``); ending it ends this one.
    package func mapping(_ next: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> TakenConnection {
        TakenConnection(socket: socket, remoteAddress: remoteAddress, transform: next) { [self] response in
            if let response { respond(response) } else { close() }
        }
    }

    /// Sends `response` as the answer to the request (nothing may have been written on the
    /// socket yet), then closes the connection.
    public func respond(_ response: HTTPResponse) {
        end(transform(response))
    }

    /// Closes the connection without an answer (a tunnel's end).
    public func close() {
        end(nil)
    }

    private func end(_ response: HTTPResponse?) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        release(response)
    }
}
