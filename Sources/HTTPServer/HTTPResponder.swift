/// Produces the response to a request, synchronously.
///
/// Called on the libmicrohttpd worker thread that owns the connection, so it must not
/// block for long: a slow responder stalls every connection of that worker. Several
/// workers call it concurrently, hence `Sendable`.
public protocol HTTPResponder: Sendable {
    /// Returns the response to send for `request`.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// Produces the response to a request asynchronously (for example after a network call).
///
/// The server suspends the connection (`MHD_suspend_connection`), runs `respond` in a
/// `Task`, and resumes the connection to send the result from its own worker thread.
/// A suspended connection still counts against ``HTTPServerConfiguration/connectionLimit``
/// and is not subject to the idle timeout, so the responder must bound its own latency.
/// On shutdown, responses still missing at the drain deadline are answered with 503.
public protocol HTTPAsyncResponder: Sendable {
    /// Returns the response to send for `request`.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// How a ``HTTPRoutingResponder`` answers one request.
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
}

/// Answers some requests at once and others asynchronously, chosen per request.
///
/// Fast endpoints keep the synchronous path (no suspend, no task, no thread hop), while
/// endpoints that wait on I/O free the worker thread instead of blocking it: with a thread
/// pool the size of the core count, one blocked worker stalls every connection it owns.
public protocol HTTPRoutingResponder: Sendable {
    /// Returns the response, or the work that will produce it.
    func route(_ request: HTTPRequest) -> HTTPResponderResult
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

/// How the server obtains responses: on the worker thread, or in a task while suspended.
enum ResponderKind: Sendable {
    case synchronous(any HTTPResponder)
    case asynchronous(any HTTPAsyncResponder)
    case routing(any HTTPRoutingResponder)
}
