import Foundation

/// `navpolicyd intake migrate|export|import`: the logic behind the CLI hook, kept out of
/// the CLI folder so the command stays independent of how the CLI declares its commands.
public enum IntakeAdminCommand {
    /// The help text.
    public static let usage = """
        Usage: navpolicyd intake migrate [--database URI]
               navpolicyd intake export [--database PATH|URI] [--output FILE]
               navpolicyd intake import [--database PATH|URI] [--input FILE]

        migrate  creates or upgrades the PostgreSQL intake schema (as every replica does at start,
                 under an advisory lock), so a rollout can do it ahead of time.
        export   writes every item and Idempotency-Key record as NDJSON (stdout by default).
        import   reads such NDJSON (stdin by default) into an empty store, in one transaction:
                 export from the SQLite file, import into PostgreSQL, nothing lost.

        --database defaults to $NAVPOLICY_INTAKE_DATABASE_URL. A postgresql:// or postgres:// URI
        selects PostgreSQL (password from the URI, $PGPASSWORD or ~/.pgpass); anything else is an
        SQLite file. Exit status: 0 done, 2 invalid usage or the store refused.
        """

    /// Runs the command; returns the exit status (0, or 2 with a message on `err`).
    public static func run(
        _ arguments: [String], environment: [String: String], out: (String) -> Void, err: (String) -> Void,
        readInput: (String?) throws -> String = Self.readInput
    ) -> Int32 {
        guard let action = arguments.first, ["migrate", "export", "import"].contains(action) else {
            err("navpolicyd intake: expected migrate, export or import\n\n\(usage)")
            return 2
        }
        var options: [String: String] = [:]
        var rest = arguments.dropFirst()[...]
        let allowed =
            action == "migrate" ? ["--database"] : action == "export" ? ["--database", "--output"] : ["--database", "--input"]
        while let flag = rest.first {
            rest = rest.dropFirst()
            guard allowed.contains(flag), let value = rest.first, !value.isEmpty else {
                err("navpolicyd intake \(action): unknown option or missing value: \(flag)\n\n\(usage)")
                return 2
            }
            options[flag] = value
            rest = rest.dropFirst()
        }
        guard
            let text = options["--database"]
                ?? environment[DatabaseLocation.environmentVariable].flatMap({ $0.isEmpty ? nil : $0 })
        else {
            err("navpolicyd intake \(action): no database: pass --database or set \(DatabaseLocation.environmentVariable)")
            return 2
        }
        let location = DatabaseLocation(text)
        do {
            switch action {
            case "migrate":
                guard case .postgres(let uri) = location else {
                    err("navpolicyd intake migrate: \(location) is not a postgresql:// URI (SQLite creates its schema on open)")
                    return 2
                }
                let versions = try PostgresIntakeStore.migrate(uri: uri)
                out("intake schema of \(location): version \(versions.from) -> \(versions.to)")
            case "export":
                var lines: [String] = []
                let counts = try IntakeTransfer.export(from: location) { lines.append($0) }
                let body = lines.map { $0 + "\n" }.joined()
                if let path = options["--output"] {
                    do {
                        try Data(body.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                    } catch {
                        err("navpolicyd intake export: cannot write \(path): \(error.localizedDescription)")
                        return 2
                    }
                } else {
                    out(String(body.dropLast()))
                }
                err("exported \(counts.items) items and \(counts.keys) idempotency records from \(location)")
            default:
                let input: String
                do {
                    input = try readInput(options["--input"])
                } catch {
                    err("navpolicyd intake import: cannot read \(options["--input"] ?? "stdin"): \(error.localizedDescription)")
                    return 2
                }
                let lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let counts = try IntakeTransfer.importLines(lines, into: location)
                out("imported \(counts.items) items and \(counts.keys) idempotency records into \(location)")
            }
            return 0
        } catch {
            err("navpolicyd intake \(action): \(error.description)")
            return 2
        }
    }

    /// The file's text, or standard input's when `path` is nil.
    public static func readInput(_ path: String?) throws -> String {
        if let path { return try String(contentsOfFile: path, encoding: .utf8) }
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
}
