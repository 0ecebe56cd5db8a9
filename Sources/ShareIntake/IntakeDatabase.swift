import CSQLite
import Foundation
import JSONSupport
import Synchronization

/// The intake database file and the two connections on it, kept usable through storage
/// faults: it reopens after errors that can leave a connection unusable, notices when the
/// file at the path is no longer the one it opened, and reports its health without writing.
///
/// Threading: the writer connection belongs to the writer thread (``writerConnection()``,
/// ``verifyAfterCommit()``, ``record(_:)`` run only there); the reader connection is used
/// under its mutex; ``health()`` may run on any thread.
///
/// A file deleted or replaced under the daemon: the acknowledged items then live only in
/// the inode the daemon still holds open. Before letting go of it the daemon copies it
/// (`VACUUM INTO`) to `<path>.detached-<UTC time>` and logs `intake.store_detached`; if the
/// copy fails it keeps the old file open and answers 503 until it succeeds. It never creates
/// an empty database in place of a deleted one (the shares would silently vanish from every
/// read): it answers 503 until a database is at the path again (the detached copy moved
/// back, a restored backup), then opens that and logs `intake.store_reopened`.
final class IntakeDatabase: Sendable {
    let path: String
    private let busyTimeoutMilliseconds: Int
    private let maxDatabaseBytes: Int?

    /// The writer thread's side; only that thread touches it.
    private final class WriterSide: @unchecked Sendable {
        var connection: SQLiteConnection?
        var needsReopen = false
    }

    private final class ReaderSide: @unchecked Sendable {
        // Used only under the `reader` mutex.
        var connection: SQLiteConnection?
        var generation = 0
    }

    /// What every thread may read: the identity of the file the writer has open (nil after
    /// it let go of a deleted file), a counter bumped at each switch to another file (the
    /// reader reopens when it moved), and the last write's fault.
    private struct Shared {
        var identity: FileIdentity?
        var generation = 0
        var fault: IntakeStorageFault?
        /// Pages in use and bytes free when `full` was recorded: the fault clears once
        /// either improved (something deleted, space freed), so readiness does not flap.
        var fullMark: SpaceMeasure?
    }

    struct SpaceMeasure: Equatable {
        var usedPages: Int64
        var freeBytes: UInt64
    }

    private let writer = WriterSide()
    private let reader = Mutex(ReaderSide())
    private let shared = Mutex(Shared())
    private let events = Mutex<(@Sendable (String, JSONObject) -> Void)?>(nil)

    /// Opens (creating) the database for the first time.
    init(
        path: String, busyTimeoutMilliseconds: Int, maxDatabaseBytes: Int?,
        setUp: (SQLiteConnection) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.maxDatabaseBytes = maxDatabaseBytes
        let connection = try open(create: true)
        try setUp(connection)
        writer.connection = connection
        let identity = FileIdentity.of(path)
        shared.withLock { $0.identity = identity }
    }

    /// Receives `intake.store_*` events (name, fields) for the daemon's log.
    func observeEvents(_ observer: @escaping @Sendable (String, JSONObject) -> Void) {
        events.withLock { $0 = observer }
    }

    private func emit(_ event: String, _ fields: JSONObject) {
        events.withLock { $0 }?(event, fields)
    }

    private func open(create: Bool) throws(SQLiteError) -> SQLiteConnection {
        try SQLiteConnection(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, create: create, maxDatabaseBytes: maxDatabaseBytes)
    }

    // MARK: - Writer thread

    /// The connection to write a batch on: reopened when an earlier error asked for it,
    /// switched to the file now at the path when the open one was deleted or replaced.
    func writerConnection() throws(SQLiteError) -> SQLiteConnection {
        let expected = shared.withLock { $0.identity }
        let current = FileIdentity.of(path)
        if let connection = writer.connection, !writer.needsReopen, expected != nil, current == expected {
            return connection
        }
        if let connection = writer.connection, expected != nil, current != expected {
            // Only a file that is gone or another file counts: a failing stat says nothing.
            guard current != nil || FileIdentity.isMissing(path) else {
                throw SQLiteError(code: SQLITE_IOERR, message: "cannot inspect \(path): \(String(cString: strerror(errno)))")
            }
            try detach(connection, found: current)
        }
        guard FileIdentity.of(path) != nil else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "no database file at \(path)")
        }
        // Close both first: a connection closing after the new one opened could apply its WAL to the wrong file.
        writer.connection = nil
        reader.withLock { $0.connection = nil }
        let connection = try open(create: false)
        try connection.execute(SQLiteIntakeStore.schema)
        let opened = FileIdentity.of(path)
        writer.connection = connection
        writer.needsReopen = false
        let switched = shared.withLock { state -> Bool in
            let switched = state.identity != opened
            if switched { state.generation += 1 }
            state.identity = opened
            return switched
        }
        emit("intake.store_reopened", ["path": .string(path), "newFile": .bool(switched)])
        return connection
    }

    /// After COMMIT: the commit counts only if it went to the file at the path. Throws when
    /// the file was deleted or replaced meanwhile, so the batch is failed, not acknowledged.
    func verifyAfterCommit() throws(SQLiteError) {
        let expected = shared.withLock { $0.identity }
        guard let expected, FileIdentity.of(path) == expected else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(path) was deleted or replaced during the commit")
        }
    }

    /// Copies the open (deleted or replaced) file next to the path, then closes both
    /// connections so nothing of the old file's WAL can meet the new file.
    private func detach(_ connection: SQLiteConnection, found: FileIdentity?) throws(SQLiteError) {
        let rescue = path + ".detached-" + Self.fileTimestamp(Date())
        do {
            try connection.execute("VACUUM INTO '\(rescue.replacingOccurrences(of: "'", with: "''"))'")
        } catch {
            emit(
                "intake.store_detach_failed",
                ["path": .string(path), "copy": .string(rescue), "cause": .string(error.description)])
            throw error
        }
        reader.withLock { $0.connection = nil }
        writer.connection = nil
        // SQLite leaves the WAL and its index behind when the file was renamed or deleted
        // under it, and the next connection on the path would replay that WAL into whatever
        // file is there now (a restored backup), corrupting it. Their content is in the copy.
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        shared.withLock { state in
            state.identity = nil
            state.generation += 1
        }
        emit(
            "intake.store_detached",
            ["path": .string(path), "reason": .string(found == nil ? "deleted" : "replaced"), "copy": .string(rescue)])
    }

    /// Records how the last batch (or probe) went; `probe` successes clear a `full` fault
    /// only once space was freed, because an empty commit proves nothing about space.
    func record(_ outcome: IntakeStorageFault?, probe: Bool = false) {
        if let outcome, outcome.needsReopen { writer.needsReopen = true }
        let measure = outcome == .full || (outcome == nil && probe) ? space() : nil
        shared.withLock { state in
            switch outcome {
            case .some(.full):
                if state.fault != .full { state.fullMark = measure }
                state.fault = .full
            case .some(let fault):
                state.fault = fault
            case nil:
                if probe, state.fault == .full, let mark = state.fullMark, let measure, !Self.improved(measure, since: mark) {
                    return
                }
                state.fault = nil
                state.fullMark = nil
            }
        }
    }

    private static func improved(_ now: SpaceMeasure, since mark: SpaceMeasure) -> Bool {
        now.usedPages < mark.usedPages || now.freeBytes >= mark.freeBytes + 1 << 20
    }

    // MARK: - Reader

    /// Runs `body` on the reader connection, reopening it when the writer switched files;
    /// fails while the file at the path is not the one the writer has open.
    func read<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        let (expected, generation) = shared.withLock { ($0.identity, $0.generation) }
        guard let expected, FileIdentity.of(path) == expected else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(path) is not the database the daemon opened")
        }
        return try reader.withLock { (side) throws(SQLiteError) -> T in
            if side.connection == nil || side.generation != generation {
                side.connection = nil
                side.connection = try open(create: false)
                side.generation = generation
            }
            guard let connection = side.connection else {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(path)")
            }
            do throws(SQLiteError) {
                return try body(connection)
            } catch {
                if error.fault.needsReopen { side.connection = nil }
                throw error
            }
        }
    }

    // MARK: - Health

    /// A cheap check without writing: the last write's fault, the file at the path, write
    /// permission on the file and its directory, free space. `needsProbe` is true when only
    /// the writer can tell whether the fault cleared (a lock, a reopen).
    func health() -> (health: IntakeStoreHealth, needsProbe: Bool) {
        let (expected, fault) = shared.withLock { ($0.identity, $0.fault) }
        let current = FileIdentity.of(path)
        if current == nil { return (IntakeStoreHealth(fault: .missing), true) }
        if current != expected {
            // After letting go of a deleted file, a file at the path that fails to open says why.
            return (IntakeStoreHealth(fault: expected == nil ? fault ?? .missing : .replaced), true)
        }
        if let fault { return (IntakeStoreHealth(fault: fault), true) }
        let directory = (path as NSString).deletingLastPathComponent
        let writable =
            access(directory.isEmpty ? "." : directory, W_OK | X_OK) == 0 && access(path, W_OK) == 0
            && (access(path + "-wal", F_OK) != 0 || access(path + "-wal", W_OK) == 0)
        if !writable { return (IntakeStoreHealth(fault: .readOnly), false) }
        return (.ok, false)
    }

    /// Pages in use (against `max_page_count`) and bytes free on the file system.
    private func space() -> SpaceMeasure? {
        guard let connection = writer.connection else { return nil }
        let used = (try? connection.pragma("page_count")).map { $0 - ((try? connection.pragma("freelist_count")) ?? 0) }
        var system = statvfs()
        let free = statvfs(path, &system) == 0 ? UInt64(system.f_bavail) * UInt64(system.f_frsize) : 0
        return SpaceMeasure(usedPages: used ?? 0, freeBytes: free)
    }

    private static func fileTimestamp(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.omitted).time(includingFractionalSeconds: false)
                .timeSeparator(.omitted).timeZone(separator: .omitted))
    }
}
