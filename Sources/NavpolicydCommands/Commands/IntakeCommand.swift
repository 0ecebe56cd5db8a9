import Foundation
package import ShareIntake

/// `navpolicyd intake migrate|export|import`: moves the share-intake store between machines
/// and stores (SQLite → PostgreSQL); the work is ``IntakeAdminCommand`` in ShareIntake.
package struct IntakeCommand: ParsableCommand {
    static let database = Option.text(
        "database", "PATH|URI", kind: .file,
        help: "the store: an SQLite file or a postgresql:// URI (default: $NAVPOLICY_INTAKE_DATABASE_URL)")
    static let output = Option.text("output", "FILE", kind: .file, help: "export: write the NDJSON here (default: stdout)")
    static let input = Option.text("input", "FILE", kind: .file, help: "import: read the NDJSON from here (default: stdin)")

    package static let declaration = CommandDeclaration(
        name: "intake",
        summary: "Migrate, export or import the share-intake store (SQLite → PostgreSQL)",
        discussion: """
            migrate  creates or upgrades the PostgreSQL intake schema (as every replica does at
                     start, under an advisory lock), so a rollout can do it ahead of time.
            export   writes every item and Idempotency-Key record as NDJSON.
            import   reads such NDJSON into an empty store, in one transaction: export from the
                     SQLite file, import into PostgreSQL, nothing lost.
            A postgresql:// or postgres:// URI selects PostgreSQL (password from the URI,
            $PGPASSWORD or ~/.pgpass); anything else is an SQLite file.
            """,
        notes: "Exit status: 0 done; 2 invalid usage or the store refused.",
        options: [database.declaration, output.declaration, input.declaration],
        positional: PositionalDeclaration(
            name: "ACTION", help: "migrate, export or import", arity: .exactlyOne,
            kind: .choice(IntakeAdminCommand.Action.allCases.map(\.rawValue)),
            missingMessage: "missing the action (migrate, export or import)"))

    package var action: IntakeAdminCommand.Action
    package var databaseText: String?
    package var outputPath: String?
    package var inputPath: String?

    package init(_ arguments: ParsedArguments) {
        // The parser has checked the operand against the choices.
        action = arguments.positionals.first.flatMap(IntakeAdminCommand.Action.init(rawValue:)) ?? .migrate
        databaseText = arguments[Self.database]
        outputPath = arguments[Self.output]
        inputPath = arguments[Self.input]
    }

    /// `--output` belongs to export and `--input` to import; anything else is a mistake to report.
    package mutating func validate() throws(CommandError) {
        if outputPath != nil, action != .export { throw .usage("--output is only for 'intake export'") }
        if inputPath != nil, action != .import { throw .usage("--input is only for 'intake import'") }
    }

    package func run(_ output: Output) -> Int32 {
        IntakeAdminCommand.run(
            action, database: databaseText, output: outputPath, input: inputPath,
            environment: ProcessInfo.processInfo.environment, out: output.out, err: output.err)
    }
}
