import Foundation

/// `navpolicyd intake migrate|export|import`: the logic behind the CLI hook, kept out of
/// the CLI folder so the command stays independent of how the CLI declares its commands.
public enum IntakeAdminCommand {
    /// What `navpolicyd intake` does.
    public enum Action: String, CaseIterable, Sendable {
        /// Create or upgrade the PostgreSQL schema.
        case migrate
        /// Write every item and Idempotency-Key record as NDJSON.
        case export
        /// Read such NDJSON into an empty store.
        case `import`
    }

    /// Runs the action; returns the exit status (0, or 2 with a message on `err`). The CLI has
    /// checked the options against the action (`--output` only for export, `--input` only for import).
    public static func run(
        _ action: Action, database: String?, output: String?, input: String?, environment: [String: String],
        out: (String) -> Void, err: (String) -> Void, readInput: (String?) throws -> String = Self.readInput
    ) -> Int32 {
        guard
            let text = database
                ?? environment[DatabaseLocation.environmentVariable].flatMap({ $0.isEmpty ? nil : $0 })
        else {
            err("navpolicyd intake \(action): no database: pass --database or set \(DatabaseLocation.environmentVariable)")
            return 2
        }
        let location = DatabaseLocation(text)
        do {
            switch action {
            case .migrate:
                guard case .postgres(let uri) = location else {
                    err("navpolicyd intake migrate: \(location) is not a postgresql:// URI (SQLite creates its schema on open)")
                    return 2
                }
                let versions = try PostgresIntakeStore.migrate(uri: uri)
                out("intake schema of \(location): version \(versions.from) -> \(versions.to)")
            case .export:
                var lines: [String] = []
                let counts = try IntakeTransfer.export(from: location) { lines.append($0) }
                let body = lines.map { $0 + "\n" }.joined()
                if let path = output {
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
            case .import:
                let text: String
                do {
                    text = try readInput(input)
                } catch {
                    err("navpolicyd intake import: cannot read \(input ?? "stdin"): \(error.localizedDescription)")
                    return 2
                }
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
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
