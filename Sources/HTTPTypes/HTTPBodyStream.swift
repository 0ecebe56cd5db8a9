/// A response body produced while it is being sent (a proxied download, a long report).
///
/// The server pulls bytes with ``read(into:waker:)`` on the connection's worker thread,
/// as fast as the client takes them. When nothing is available yet the stream keeps the
/// waker and returns ``HTTPBodyStreamRead/pending``; the server then suspends the
/// connection (no busy loop, no blocked worker) until the stream calls
/// ``HTTPBodyStreamWaker/wake()``. A slow client therefore slows the producer down instead
/// of growing a buffer: the stream decides how much it holds.
public protocol HTTPBodyStream: AnyObject, Sendable {
    /// The exact body length when known before the first byte (sent as `Content-Length`);
    /// nil sends the body chunked (HTTP/1.1) or close-delimited (HTTP/1.0).
    var contentLength: Int? { get }

    /// Copies up to `buffer.count` available bytes into `buffer`.
    ///
    /// Returning ``HTTPBodyStreamRead/pending`` obliges the stream to call `waker.wake()`
    /// once more bytes, the end or a failure are available; waking more than once is harmless.
    func read(into buffer: UnsafeMutableRawBufferPointer, waker: any HTTPBodyStreamWaker) -> HTTPBodyStreamRead

    /// The server is done with the stream: the body was sent, the client went away, or the
    /// server shut down. Called exactly once; release what the producer holds.
    func close()
}

/// The outcome of one ``HTTPBodyStream/read(into:waker:)``.
public enum HTTPBodyStreamRead: Sendable, Equatable {
    /// This many bytes (at least 1) were copied.
    case bytes(Int)
    /// Nothing yet; the waker will be called.
    case pending
    /// The body is complete.
    case end
    /// The body cannot be completed: the connection is closed so the client sees the
    /// truncation instead of a short body that looks whole.
    case failed
}

/// Resumes a connection whose body stream had nothing to send.
public protocol HTTPBodyStreamWaker: AnyObject, Sendable {
    /// Safe from any thread, at any time, any number of times.
    func wake()
}
