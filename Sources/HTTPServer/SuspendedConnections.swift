import CMHDShim
import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Connections suspended while an ``HTTPResponder``'s `.later` or `.deferred` answer is pending, so that shutdown can
/// resume them: MHD never times out a suspended connection, and `MHD_stop_daemon` must
/// not run while any is suspended.
///
/// Suspending, resuming and closing all happen under one lock, so a connection is resumed
/// exactly once, either by its task or by shutdown, and never after the daemon stops.
final class SuspendedConnections: Sendable {
    /// A connection pointer with its request; `@unchecked Sendable` because the pointer is
    /// only used under the registry lock while MHD guarantees it stays valid (suspended).
    private struct Entry: @unchecked Sendable {
        let connection: OpaquePointer
        let context: RequestContext
        /// The taker's duplicate of the socket (a tunnel), or -1. Open while the entry is
        /// registered: the taker closes it only after ``release(_:with:)`` removed the entry.
        var takenSocket: Int32 = -1
        /// The connection's own socket, polled by ``clientHasLeft(_:)`` (-1: not watched).
        /// MHD closes it only after the connection is resumed, which removes the entry first.
        var clientSocket: Int32 = -1
    }

    private struct Registry {
        var entries: [ObjectIdentifier: Entry] = [:]
        var isClosed = false
    }

    private let registry = Mutex(Registry())

    /// Suspends the connection; returns false (nothing suspended) once shutdown has closed the registry.
    func suspend(
        _ connection: OpaquePointer, context: RequestContext, takenSocket: Int32 = -1, clientSocket: Int32 = -1
    ) -> Bool {
        let entry = Entry(connection: connection, context: context, takenSocket: takenSocket, clientSocket: clientSocket)
        return registry.withLock { registry in
            guard !registry.isClosed else { return false }
            entry.context.machine.suspended()
            MHD_suspend_connection(entry.connection)
            registry.entries[ObjectIdentifier(entry.context)] = entry
            return true
        }
    }

    /// Whether the client of the suspended request `context` is gone: it closed or reset its
    /// connection, or the request is no longer waiting (answered, or resumed by shutdown).
    /// Polled under the lock, so the socket is never one MHD already closed and reused.
    func clientHasLeft(_ context: RequestContext) -> Bool {
        registry.withLock { registry in
            guard let entry = registry.entries[ObjectIdentifier(context)] else { return true }
            return ClientPresence.peerClosed(entry.clientSocket)
        }
    }

    /// Stores the response and resumes the connection, unless shutdown already did (then a
    /// streamed body is closed at once, so its producer stops).
    func resume(_ context: RequestContext, with response: HTTPResponse) {
        let delivered = registry.withLock { registry -> Bool in
            guard let entry = registry.entries.removeValue(forKey: ObjectIdentifier(context)) else { return false }
            entry.context.machine.resumed(with: response)
            MHD_resume_connection(entry.connection)
            return true
        }
        if !delivered, case .stream(let stream) = response.body { stream.close() }
    }

    /// Ends a taken-over connection: resumes it to send `response` (the taker wrote nothing),
    /// or, when nil, to close it without one. Nothing happens once shutdown already did.
    func release(_ context: RequestContext, with response: HTTPResponse?) {
        registry.withLock { registry in
            guard let entry = registry.entries.removeValue(forKey: ObjectIdentifier(context)) else { return }
            if let response {
                entry.context.machine.resumed(with: response)
            } else {
                entry.context.machine.resumedToClose()
            }
            MHD_resume_connection(entry.connection)
        }
    }

    /// Refuses new suspensions and resumes every waiting connection with `response`; a
    /// taken-over one (a tunnel still relaying at the drain deadline) is shut down instead, so
    /// its taker's relay ends, and closed without a response.
    /// - Returns: how many connections were resumed this way.
    func closeAndResumeAll(with response: HTTPResponse) -> Int {
        registry.withLock { registry in
            registry.isClosed = true
            let waiting = registry.entries.values
            registry.entries = [:]
            for entry in waiting {
                if entry.takenSocket >= 0 {
                    // Still open (the taker closes it only after release removed the entry).
                    _ = shutdown(entry.takenSocket, Int32(SHUT_RDWR))
                    entry.context.machine.resumedToClose()
                    MHD_resume_connection(entry.connection)
                    continue
                }
                entry.context.machine.resumed(with: response)
                MHD_resume_connection(entry.connection)
            }
            return waiting.count
        }
    }
}
