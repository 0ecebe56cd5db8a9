import Foundation

/// Checks, before the store opens, that the intake database's directory exists (creating
/// it when missing) and is writable, so start-up fails with the path and the system's
/// reason instead of SQLite's "unable to open database file".
public enum IntakeDataDirectory {
    /// Creates the directory of `databasePath` if needed and checks that the daemon can
    /// create and write files in it (and read and write the database, if it exists).
    public static func prepare(databasePath: String) throws(IntakeStoreError) {
        let parent = (databasePath as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        try createDirectories(directory, databasePath: databasePath)
        guard access(directory, W_OK | X_OK) == 0 else {
            throw unusable(databasePath, "cannot write in \(directory): \(reason(errno))")
        }
        var status = stat()
        guard stat(databasePath, &status) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw unusable(databasePath, "cannot inspect \(databasePath): \(reason(code))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw unusable(databasePath, "\(databasePath) exists but is not a regular file")
        }
        guard access(databasePath, R_OK | W_OK) == 0 else {
            throw unusable(databasePath, "cannot read and write \(databasePath): \(reason(errno))")
        }
    }

    /// `mkdir -p` that stops at the first component it cannot use and says which one.
    private static func createDirectories(_ directory: String, databasePath: String) throws(IntakeStoreError) {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + component
            var status = stat()
            if stat(prefix, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw unusable(databasePath, "\(prefix) is not a directory")
                }
                continue
            }
            let code = errno
            guard code == ENOENT else { throw unusable(databasePath, "cannot inspect \(prefix): \(reason(code))") }
            // 0750: the directory holds users' shares; nobody but the daemon's user and group needs it.
            guard mkdir(prefix, 0o750) == 0 || errno == EEXIST else {
                throw unusable(databasePath, "cannot create \(prefix): \(reason(errno))")
            }
        }
    }

    private static func unusable(_ databasePath: String, _ detail: String) -> IntakeStoreError {
        IntakeStoreError(
            "share intake is enabled (intake.enabled) but its database \(databasePath) cannot be used: \(detail); "
                + "point NAVPOLICY_DATA_DIR or intake.database at a writable directory, "
                + "or set intake.enabled to false to run without intake")
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
