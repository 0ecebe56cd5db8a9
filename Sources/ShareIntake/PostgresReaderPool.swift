import Foundation
import Synchronization

/// A few PostgreSQL connections for reads, each lent to one request at a time (libpq
/// connections are not thread-safe). Connections open lazily and a broken one is dropped,
/// so the pool reconnects by itself once the server is back.
final class PostgresReaderPool: Sendable {
    private final class ConnectionBox: @unchecked Sendable {
        // Used by one borrower at a time: it is either in `idle` or held by one `withConnection` call.
        let connection: PostgresConnection
        /// True when it came from the idle list (it may have been closed by the server since).
        var wasIdle = false
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    private let idle = Mutex<(connections: [ConnectionBox], closed: Bool)>(([], false))
    private let backoff = Mutex(ReconnectBackoff())
    /// One permit per connection the pool may have open.
    private let permits: DispatchSemaphore
    private let connect: @Sendable (ContinuousClock.Instant?) throws(PostgresError) -> PostgresConnection

    /// - Parameters:
    ///   - size: most connections open at once (and reads in progress).
    ///   - connect: opens a connection, done by the deadline it is given.
    init(size: Int, connect: @escaping @Sendable (ContinuousClock.Instant?) throws(PostgresError) -> PostgresConnection) {
        permits = DispatchSemaphore(value: max(1, size))
        self.connect = connect
    }

    /// Runs `body` on a connection, all of it (waiting for a free connection, connecting,
    /// every statement) done by `deadline`; a connection that broke or timed out is closed,
    /// not returned.
    func withConnection<T>(until deadline: ContinuousClock.Instant, _ body: (PostgresConnection) throws(PostgresError) -> T)
        throws(PostgresError) -> T
    {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero,
            permits.wait(timeout: .now() + .milliseconds(left.roundedUpMilliseconds)) == .success
        else {
            throw PostgresError(
                sqlState: nil, message: "no PostgreSQL connection free in time", connectionLost: false, timedOut: true)
        }
        defer { permits.signal() }
        let box = try borrow(until: deadline)
        do {
            let value = try run(body, on: box.connection, until: deadline)
            giveBack(box)
            return value
        } catch {
            if !error.connectionLost { giveBack(box) }
            // An idle connection the server closed (a restart) fails its first statement:
            // reads change nothing, so one retry on a fresh connection is safe. Not after a
            // timeout: the server is not answering, and the deadline is spent.
            guard error.connectionLost, !error.timedOut, box.wasIdle else { throw error }
        }
        let fresh = try borrow(reuse: false, until: deadline)
        do {
            let value = try run(body, on: fresh.connection, until: deadline)
            giveBack(fresh)
            return value
        } catch {
            if !error.connectionLost { giveBack(fresh) }
            throw error
        }
    }

    private func run<T>(
        _ body: (PostgresConnection) throws(PostgresError) -> T, on connection: PostgresConnection,
        until deadline: ContinuousClock.Instant
    ) throws(PostgresError) -> T {
        connection.deadline = deadline
        defer { connection.deadline = nil }
        return try body(connection)
    }

    /// Closes the idle connections; later reads answer 503.
    func close() {
        idle.withLock { state in
            state.connections.removeAll()
            state.closed = true
        }
    }

    private func borrow(reuse: Bool = true, until deadline: ContinuousClock.Instant) throws(PostgresError)
        -> ConnectionBox
    {
        let taken = idle.withLock { state -> (box: ConnectionBox?, closed: Bool) in
            (reuse ? state.connections.popLast() : nil, state.closed)
        }
        if taken.closed { throw PostgresError(sqlState: nil, message: "the store is closed", connectionLost: true) }
        if let box = taken.box, box.connection.isUsable {
            box.wasIdle = true
            return box
        }
        let now = ContinuousClock.now
        guard backoff.withLock({ $0.mayAttempt(at: now) }) else {
            throw PostgresError(sqlState: nil, message: "reconnecting to PostgreSQL (backing off)", connectionLost: true)
        }
        do {
            let connection = try connect(deadline)
            backoff.withLock { $0.succeeded() }
            let box = ConnectionBox(connection)
            box.wasIdle = false
            return box
        } catch {
            backoff.withLock { $0.failed(at: now) }
            throw error
        }
    }

    private func giveBack(_ box: ConnectionBox) {
        guard box.connection.isUsable else { return }
        idle.withLock { state in
            if !state.closed { state.connections.append(box) }
        }
    }
}
