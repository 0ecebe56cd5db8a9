import CMicroHTTPD
import Synchronization

/// One streamed response on one connection: feeds libmicrohttpd's content reader from an
/// ``HTTPBodyStream`` and parks the connection while the stream has nothing to give.
///
/// libmicrohttpd calls the content reader again at once when it returns 0, so "nothing yet"
/// must suspend the connection (allowed from the content reader) and the stream's wake-up
/// must resume it. The wake-up can race the suspension from another thread: a wake that
/// arrives first is remembered and makes the reader try again instead of suspending.
final class StreamedBody: HTTPBodyStreamWaker, @unchecked Sendable {
    // @unchecked: `connection` is only used under `state`'s lock, while libmicrohttpd keeps
    // it alive (until the response's free callback, which ends this object's use).

    private struct State {
        var suspended = false
        var wokenEarly = false
        var shutDown = false
    }

    /// libmicrohttpd's content-reader codes (C macros with casts, which Swift does not import).
    static let endOfStream = -1
    static let endWithError = -2

    let stream: any HTTPBodyStream
    private let connection: OpaquePointer
    private let registry: StreamedBodies
    private let state = Mutex(State())

    /// Creates the body and registers it for shutdown.
    init(stream: any HTTPBodyStream, connection: OpaquePointer, registry: StreamedBodies) {
        self.stream = stream
        self.connection = connection
        self.registry = registry
        registry.add(self)
    }

    /// libmicrohttpd freed the response: sent, failed or abandoned by the client.
    func responseFreed() {
        registry.remove(self)
        stream.close()
    }

    /// The content reader: bytes copied, 0 after suspending, or an end code.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            if state.withLock({ $0.shutDown }) { return Self.endWithError }
            switch stream.read(into: buffer, waker: self) {
            case .bytes(let count): return count
            case .end: return Self.endOfStream
            case .failed: return Self.endWithError
            case .pending:
                let suspended = state.withLock { state -> Bool in
                    if state.wokenEarly || state.shutDown {
                        state.wokenEarly = false
                        return false
                    }
                    state.suspended = true
                    MHD_suspend_connection(connection)
                    return true
                }
                if suspended { return 0 }
            }
        }
    }

    func wake() {
        state.withLock { state in
            guard state.suspended else {
                state.wokenEarly = true
                return
            }
            state.suspended = false
            MHD_resume_connection(connection)
        }
    }

    /// Server shutdown: the next read fails, closing the connection; a parked connection is
    /// resumed so that happens now (MHD_stop_daemon must not find suspended connections).
    func shutDown() {
        state.withLock { state in
            state.shutDown = true
            guard state.suspended else { return }
            state.suspended = false
            MHD_resume_connection(connection)
        }
    }
}

/// The streamed bodies being sent, so that shutdown can end them.
final class StreamedBodies: Sendable {
    private struct Registry {
        var bodies: [ObjectIdentifier: StreamedBody] = [:]
        var isClosed = false
    }

    private let registry = Mutex(Registry())

    /// Tracks `body`; after shutdown the body is shut down at once instead.
    func add(_ body: StreamedBody) {
        let accepted = registry.withLock { registry -> Bool in
            guard !registry.isClosed else { return false }
            registry.bodies[ObjectIdentifier(body)] = body
            return true
        }
        if !accepted { body.shutDown() }
    }

    /// Stops tracking `body` (its response was freed).
    func remove(_ body: StreamedBody) {
        _ = registry.withLock { $0.bodies.removeValue(forKey: ObjectIdentifier(body)) }
    }

    /// Shuts every body down and refuses new ones; returns how many were still being sent.
    func closeAll() -> Int {
        let open = registry.withLock { registry -> [StreamedBody] in
            registry.isClosed = true
            defer { registry.bodies = [:] }
            return Array(registry.bodies.values)
        }
        for body in open { body.shutDown() }
        return open.count
    }
}
