/// How a responder answers one request: now on the transport's thread, later from a task,
/// deferred to a callback-driven component, or by taking the connection over.
public enum HTTPResponderResult: Sendable {
    /// The response is ready: it is queued on the transport's thread without suspending.
    case now(HTTPResponse)
    /// The response needs slow work (a disk commit, a network call): the connection is
    /// suspended, the closure runs in a `Task`, and its result is sent when it returns.
    case later(@Sendable () async -> HTTPResponse)
    /// The response comes from a callback-driven component (an event loop): the connection
    /// is suspended, then the closure is called on the transport's thread with the function
    /// that resumes it and the ``ClientPresence`` of the suspended connection, which says when
    /// the client left (long work asks it and stops when nobody waits). Call the function
    /// once, from any thread; later calls are ignored. A response that never comes keeps the
    /// connection until shutdown answers 503.
    case deferred(
        @Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void, _ client: ClientPresence) -> Void)
    /// The responder takes the connection's socket over (a `CONNECT` tunnel): nothing is
    /// queued; the connection is suspended, and the closure is called on the transport's
    /// thread with the ``TakenConnection`` that owns a duplicate of its socket. It must return
    /// at once (start a thread) and end with ``TakenConnection/respond(_:)`` (nothing written
    /// yet) or ``TakenConnection/close()``. Only on transports that accept `CONNECT`; any
    /// other answers 500.
    case takeOver(@Sendable (TakenConnection) -> Void)

    /// The same answer with `transform` applied to the response whenever it comes: the one
    /// place where a responder adds what every response carries (headers, metrics), whether
    /// the response is ready now, later or deferred.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponderResult {
        switch self {
        case .now(let response):
            return .now(transform(response))
        case .later(let work):
            return .later { transform(await work()) }
        case .deferred(let start):
            return .deferred { respond, client in
                start({ response in respond(transform(response)) }, client)
            }
        case .takeOver(let start):
            // No response of the server's goes out on a taken connection unless the taker
            // answers with one: that one is transformed like any other.
            return .takeOver { taken in start(taken.mapping(transform)) }
        }
    }
}

/// What every transport serves: one function from a request to its answer, chosen per request.
///
/// The HTTP/1.1 server (`HTTPServer`) calls it on the libmicrohttpd worker thread that owns
/// the connection, concurrently from several workers (hence `Sendable`); another transport
/// calls the same function, so a service written against it (the daemon's `PolicyAPI`) is
/// served by any of them. Fast endpoints answer `.now` (no suspend, no task, no thread hop),
/// while endpoints that wait on I/O answer `.later` or `.deferred` and free the thread instead
/// of blocking it: with a thread pool the size of the core count, one blocked worker stalls
/// every connection it owns.
///
/// A suspended connection still counts against the transport's connection limit and is not
/// subject to its idle timeout, so the responder must bound its own latency. On shutdown,
/// responses still missing at the drain deadline are answered with 503.
public protocol HTTPResponder: Sendable {
    /// Returns the response, or the work that will produce it.
    func respond(to request: HTTPRequest) -> HTTPResponderResult

    /// Responses a transport may build once, when it is created, in its own form; whenever
    /// ``respond(to:)`` answers with one of them unchanged (``PreparedResponse/response``) the
    /// prebuilt copy is sent, with no per-request allocation. Read once; empty by default.
    var preparedResponses: [PreparedResponse] { get }
}

extension HTTPResponder {
    /// No prepared responses: every response is built when it is sent.
    public var preparedResponses: [PreparedResponse] { [] }
}
