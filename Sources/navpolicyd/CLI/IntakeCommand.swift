import Foundation
import ShareIntake

/// `navpolicyd intake …`: a thin hook; the command lives in ``IntakeAdminCommand`` (ShareIntake).
enum IntakeCommand {
    static let command = CommandLineTool.Command(
        name: "intake",
        summary: "Migrate, export or import the share-intake store (SQLite → PostgreSQL)",
        usage: IntakeAdminCommand.usage,
        run: { arguments, output in
            IntakeAdminCommand.run(
                arguments, environment: ProcessInfo.processInfo.environment, out: output.out, err: output.err)
        })
}
