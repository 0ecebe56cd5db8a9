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
}
