/// Where the intake store lives: an SQLite file, or a PostgreSQL server named by a URI.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// An SQLite database file.
    case sqlite(path: String)
    /// A `postgresql://` or `postgres://` connection URI (libpq syntax).
    case postgres(uri: String)

    /// The environment variable whose URI wins over `intake.database`, so the password can
    /// stay out of the config file (a Kubernetes Secret, a systemd credential).
    public static let environmentVariable = "NAVPOLICY_INTAKE_DATABASE_URL"

    /// The store the daemon opens: `NAVPOLICY_INTAKE_DATABASE_URL` when set and non-empty,
    /// else `intake.database`, else `defaultPath`.
    public static func resolve(
        _ settings: IntakeSettings, environment: [String: String], defaultPath: @autoclosure () -> String
    ) -> DatabaseLocation {
        if let url = environment[environmentVariable], !url.isEmpty { return DatabaseLocation(url) }
        return DatabaseLocation(settings.database ?? defaultPath())
    }

    /// Opens the store at this location with the settings' pool, timeout and group commit
    /// (for SQLite, after checking the file's directory).
    public func openStore(_ settings: IntakeSettings) throws(IntakeStoreError) -> any IntakeStore {
        switch self {
        case .sqlite(let path):
            try IntakeDataDirectory.prepare(databasePath: path)
            return try SQLiteIntakeStore(
                path: path, busyTimeoutMilliseconds: settings.busyTimeoutMilliseconds, groupCommit: settings.groupCommit,
                maxDatabaseBytes: settings.maxDatabaseBytes)
        case .postgres(let uri):
            // Not silently ignored: an operator who set it expects a bound that would not exist.
            if settings.maxDatabaseBytes != nil {
                throw IntakeStoreError(
                    "intake.maxDatabaseBytes applies to an SQLite store only; \(description) is PostgreSQL (limit its size on the server)"
                )
            }
            return try PostgresIntakeStore(
                uri: uri, poolSize: settings.pool, statementTimeoutMilliseconds: settings.busyTimeoutMilliseconds,
                groupCommit: settings.groupCommit)
        }
    }

    /// A URI scheme libpq accepts selects PostgreSQL; anything else is a path.
    public init(_ text: String) {
        if Self.isPostgresURI(text) { self = .postgres(uri: text) } else { self = .sqlite(path: text) }
    }

    /// True for text starting `postgresql://` or `postgres://` (any case).
    public static func isPostgresURI(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }

    /// The location for logs and errors: a PostgreSQL URI with its password masked.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let uri): Self.redacted(uri)
        }
    }

    /// `uri` with the password in its user info and any `password=` query parameter
    /// replaced by `***`, so it can be logged.
    public static func redacted(_ uri: String) -> String {
        guard let schemeEnd = uri.range(of: "://") else { return uri }
        var result = String(uri[..<schemeEnd.upperBound])
        let rest = uri[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                result += userInfo[..<colon] + ":***"
            } else {
                result += userInfo
            }
            result += authority[at...]
        } else {
            result += authority
        }
        var tail = String(rest[authorityEnd...])
        if let query = tail.firstIndex(of: "?") {
            let path = tail[..<query]
            let parameters = tail[tail.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
            let masked = parameters.map { parameter -> String in
                parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
            }
            tail = path + "?" + masked.joined(separator: "&")
        }
        return result + tail
    }
}
