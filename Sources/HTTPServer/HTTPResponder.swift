/// How a responder answers one request: now on the worker thread, later from a task, or
/// deferred to a callback-driven component.
public enum HTTPResponderResult: Sendable {
    /// The response is ready: it is queued on the worker thread without suspending.
    case now(HTTPResponse)
    /// The response needs slow work (a disk commit, a network call): the connection is
    /// suspended, the closure runs in a `Task`, and its result is sent when it returns.
    case later(@Sendable () async -> HTTPResponse)
    /// The response comes from a callback-driven component (an event loop): the connection
    /// is suspended, then the closure is called on the worker thread with the function that
    /// resumes it. Call that function once, from any thread; later calls are ignored. A
    /// response that never comes keeps the connection until shutdown answers 503.
    case deferred(@Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
    /// ``deferred(_:)`` for long work that should stop when nobody waits for it: the closure
    /// also gets the ``ClientPresence`` of the suspended connection, which says when the
    /// client left (MHD itself would tell only after the response is sent).
    case deferredWatchingClient(
        @Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void, _ client: ClientPresence) -> Void)
    /// The responder takes the connection's socket over (a `CONNECT` tunnel): nothing is
    /// queued; the connection is suspended, and the closure is called on the worker thread
    /// with the ``TakenConnection`` that owns a duplicate of its socket. It must return at
    /// once (start a thread) and end with ``TakenConnection/respond(_:)`` (nothing written
    /// yet) or ``TakenConnection/close()``. Only on servers with
    /// ``HTTPServerConfiguration/acceptsConnect``.
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
            return .deferred { respond in start { response in respond(transform(response)) } }
        case .deferredWatchingClient(let start):
            return .deferredWatchingClient { respond, client in
                start({ response in respond(transform(response)) }, client)
            }
        case .takeOver(let start):
            // No response of the server's goes out on a taken connection unless the taker
            // answers with one: that one is transformed like any other.
            return .takeOver { taken in start(taken.mapping(transform)) }
        }
    }
}

/// The responder the server calls: answers some requests at once and others
/// asynchronously, chosen per request.
///
/// Called on the libmicrohttpd worker thread that owns the connection, concurrently from
/// several workers (hence `Sendable`). Fast endpoints keep the synchronous path (no
/// suspend, no task, no thread hop), while endpoints that wait on I/O return `.later` or
/// `.deferred` and free the worker thread instead of blocking it: with a thread pool the
/// size of the core count, one blocked worker stalls every connection it owns.
///
/// A suspended connection still counts against ``HTTPServerConfiguration/connectionLimit``
/// and is not subject to the idle timeout, so the responder must bound its own latency.
/// On shutdown, responses still missing at the drain deadline are answered with 503.
public protocol HTTPRoutingResponder: Sendable {
    /// Returns the response, or the work that will produce it.
    func route(_ request: HTTPRequest) -> HTTPResponderResult

    /// Responses the server builds once, when it is created, in libmicrohttpd's own form;
    /// whenever ``route(_:)`` answers with one of them unchanged (``PreparedResponse/response``)
    /// the prebuilt copy is sent, with no per-request allocation. Read once; empty by default.
    var preparedResponses: [PreparedResponse] { get }
}

extension HTTPRoutingResponder {
    /// No prepared responses: every response is built when it is sent.
    public var preparedResponses: [PreparedResponse] { [] }
}

/// A responder that always answers synchronously; the server adapts it to
/// ``HTTPRoutingResponder`` (every answer is `.now`).
public protocol HTTPResponder: Sendable {
    /// Returns the response to send for `request`.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// A responder that always answers from a task; the server adapts it to
/// ``HTTPRoutingResponder`` (every answer is `.later`).
public protocol HTTPAsyncResponder: Sendable {
    /// Returns the response to send for `request`.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// Adapts a closure to ``HTTPResponder``.
public struct HTTPClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        body(request)
    }
}

/// ``HTTPResponder`` seen as the one protocol the server dispatches.
struct SynchronousResponderAdapter: HTTPRoutingResponder {
    let responder: any HTTPResponder

    func route(_ request: HTTPRequest) -> HTTPResponderResult { .now(responder.respond(to: request)) }
}

/// ``HTTPAsyncResponder`` seen as the one protocol the server dispatches.
struct AsynchronousResponderAdapter: HTTPRoutingResponder {
    let responder: any HTTPAsyncResponder

    func route(_ request: HTTPRequest) -> HTTPResponderResult {
        let responder = responder
        return .later { await responder.respond(to: request) }
    }
}
