import NavigationPolicy
import TestSelection
import Testing

@testable import ShareIntake

@Suite("intake database location", .tags(.sanitizerRelevant))
struct DatabaseLocationTests {
    @Test("postgresql:// and postgres:// select PostgreSQL; anything else is an SQLite path")
    func selection() {
        #expect(DatabaseLocation("postgresql://h/db") == .postgres(uri: "postgresql://h/db"))
        #expect(DatabaseLocation("POSTGRES://h/db") == .postgres(uri: "POSTGRES://h/db"))
        #expect(DatabaseLocation("/var/lib/x.sqlite3") == .sqlite(path: "/var/lib/x.sqlite3"))
        #expect(DatabaseLocation("postgresql.sqlite3") == .sqlite(path: "postgresql.sqlite3"))
    }

    @Test("the environment URI wins over intake.database, which wins over the default; empty is unset")
    func resolution() {
        var settings = IntakeSettings()
        settings.database = "/data/intake.sqlite3"
        let url = "postgresql://u@h/db"
        #expect(
            DatabaseLocation.resolve(settings, environment: [DatabaseLocation.environmentVariable: url], defaultPath: "d")
                == .postgres(uri: url))
        #expect(
            DatabaseLocation.resolve(settings, environment: [DatabaseLocation.environmentVariable: ""], defaultPath: "d")
                == .sqlite(path: "/data/intake.sqlite3"))
        #expect(DatabaseLocation.resolve(IntakeSettings(), environment: [:], defaultPath: "d") == .sqlite(path: "d"))
    }

    @Test(
        "passwords are masked in the user info and the query, nothing else changes",
        arguments: [
            ("postgresql://user:s3cret@db.example:5432/intake", "postgresql://user:***@db.example:5432/intake"),
            ("postgres://user@db/intake?sslmode=require", "postgres://user@db/intake?sslmode=require"),
            (
                "postgresql://db/intake?user=u&password=s3cret&sslmode=verify-full",
                "postgresql://db/intake?user=u&password=***&sslmode=verify-full"
            ),
            ("postgresql://u:p%40ss@[::1]:5/x", "postgresql://u:***@[::1]:5/x"),
            ("postgresql://u:pa@ss@h/x", "postgresql://u:***@h/x"),
        ])
    func redaction(uri: String, expected: String) {
        #expect(DatabaseLocation.redacted(uri) == expected)
        #expect("\(DatabaseLocation(uri))" == expected)
    }

    @Test("intake.pool is 1–64, default 4")
    func pool() throws {
        #expect(IntakeSettings().pool == 4)
        for (value, valid) in [(1, true), (64, true), (0, false), (65, false)] {
            let json = #"{"defaultDecision":"allow","handlers":[],"intake":{"pool":\#(value)}}"#
            let compiler = PolicyCompiler(sections: [ConfigSection(name: "intake", validate: IntakeSettings.validator)])
            if let policy = try? compiler.compile(Array(json.utf8)) {
                #expect(valid && IntakeSettings.from(policy).pool == value, "pool \(value)")
            } else {
                #expect(!valid, "pool \(value) was refused")
            }
        }
    }
}
