import CSQLite
import Foundation

/// Why the intake database cannot be used right now, classified from SQLite's result code
/// (or from the file at the database path), so that every fault is answered the same way:
/// 503 `storage-unavailable` with `Retry-After`, and `/readyz/intake` 503 until it clears.
public enum IntakeStorageFault: String, Sendable, CaseIterable {
    /// The disk or `intake.maxDatabaseBytes` is full (`SQLITE_FULL`).
    case full
    /// The file or its directory cannot be written (`SQLITE_READONLY`, `EROFS`, `chattr +i`).
    case readOnly = "read-only"
    /// Another process holds the write lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    case busy
    /// A read or write failed underneath SQLite (`SQLITE_IOERR_*`).
    case ioError = "io-error"
    /// No database file is at the configured path (deleted under the daemon, `SQLITE_CANTOPEN`).
    case missing
    /// The file at the path is not the one the daemon opened (replaced under the daemon).
    case replaced
    /// The file is not a database or is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    case corrupt
    /// The PostgreSQL server does not answer (down, restarting, network).
    case unreachable
    /// Any other SQLite failure.
    case other

    /// Classifies an SQLite result code (extended codes included).
    init(sqliteCode code: Int32) {
        switch code & 0xff {
        case SQLITE_FULL: self = .full
        case SQLITE_READONLY, SQLITE_PERM: self = .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: self = .busy
        case SQLITE_IOERR: self = .ioError
        case SQLITE_CANTOPEN: self = .missing
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt
        default: self = .other
        }
    }

    /// Whether the connection may be left in a state only a fresh open clears (a write
    /// handle SQLite opened read-only, a WAL it could not write): the next attempt reopens.
    var needsReopen: Bool {
        switch self {
        case .readOnly, .ioError, .missing, .corrupt: true
        case .full, .busy, .replaced, .unreachable, .other: false
        }
    }

    /// Seconds a client should wait: a lock clears in moments, an operator's fix takes longer.
    public var retryAfterSeconds: Int {
        switch self {
        case .busy, .other: 1
        case .ioError, .missing, .replaced, .corrupt, .unreachable: 5
        case .full, .readOnly: 30
        }
    }

    /// What `/readyz/intake` and the log say about it.
    public var summary: String {
        switch self {
        case .full: "the intake database or its disk is full"
        case .readOnly: "the intake database or its directory is read-only"
        case .busy: "another process holds the intake database's write lock"
        case .ioError: "reading or writing the intake database failed"
        case .missing: "no intake database is at the configured path"
        case .replaced: "the intake database file was replaced"
        case .corrupt: "the intake database file is damaged or not a database"
        case .unreachable: "the intake database server does not answer"
        case .other: "the intake database failed"
        }
    }
}

/// What ``IntakeStore/health()`` reports: nil fault means the store can take writes.
public struct IntakeStoreHealth: Sendable, Equatable {
    /// Why the store cannot be used now, or nil when it can.
    public var fault: IntakeStorageFault?

    /// A usable store.
    public static let ok = IntakeStoreHealth(fault: nil)

    /// Creates a health report.
    public init(fault: IntakeStorageFault?) { self.fault = fault }
}

/// The device and inode of a file: what tells the daemon's open file from a file put at
/// the same path later.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The identity of the file at `path`, nil when none is there; other `stat` failures
    /// also give nil, because the daemon cannot use such a path either.
    static func of(_ path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// True only when nothing is at `path` (not when `stat` fails for another reason).
    static func isMissing(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 && (errno == ENOENT || errno == ENOTDIR)
    }
}
