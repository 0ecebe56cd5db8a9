import Foundation
import JSONSupport
import NavigationPolicy

/// `navpolicyd test CASES.json`: table-driven policy tests.
enum TestCommand {
    static let command = CommandLineTool.Command(
        name: "test",
        summary: "Run table-driven policy tests (expected decisions) against a policy",
        usage: """
            Usage: navpolicyd test [--config FILE] CASES.json

            CASES.json is an array of cases:
              [{"url": "https://app.example.com/logout", "navigationType": "linkActivated",
                "targetFrame": "main", "method": "GET", "name": "optional label",
                "expect": {"decision": "cancel", "handler": "logout", "action": "logout", "location": null}}]
            "expect.decision" is required; handler, action and location are checked when present
            (null means the field must be null).

            Prints each failure with expected and actual values; the last line is "N passed, M failed".
            Exit status: 0 all passed; 1 some failed; 2 unreadable or malformed files, invalid config.
            """,
        run: run)

    static let spec = ArgumentSpec(valueOptions: ["config"], flagOptions: [])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try spec.parse(arguments)
        } catch {
            return CommandLineTool.usageFailure("test", error, output: output)
        }
        guard parsed.positionals.count == 1, let casesPath = parsed.positionals.first else {
            return CommandLineTool.usageFailure("test", UsageError("expected one CASES.json file"), output: output)
        }
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(ConfigLoader.resolvePath(flag: parsed.value("config")))
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        let cases: [PolicyTestCase]
        switch loadCases(casesPath) {
        case .success(let loaded): cases = loaded
        case .failure(let error):
            output.err(error.message)
            return ExitCode.usage
        }

        var failed = 0
        for testCase in cases {
            let problems: [String]
            let actual: String
            do {
                let decision = try policy.decide(testCase.request)
                problems = testCase.mismatches(decision)
                actual = decision.jsonObject.serializedJSON
            } catch {
                problems = ["the request is invalid: \(error)"]
                actual = "(no decision)"
            }
            guard !problems.isEmpty else { continue }
            failed += 1
            output.out("FAIL \(testCase.label): \(testCase.request.url)")
            for problem in problems { output.out("  \(problem)") }
            output.out("  actual: \(actual)")
        }
        output.out("\(cases.count - failed) passed, \(failed) failed")
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    private static func loadCases(_ path: String) -> Result<[PolicyTestCase], CasesFileError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(CasesFileError("navpolicyd test: cases file \(path): cannot be read"))
        }
        let document: JSONValue
        do {
            document = try JSONParser().parse(data)
        } catch {
            return .failure(CasesFileError("navpolicyd test: cases file \(path): invalid JSON at \(error)"))
        }
        switch PolicyTestCase.decodeAll(document) {
        case .success(let cases): return .success(cases)
        case .failure(let error):
            let lines = error.issues.map { "  \($0)" }.joined(separator: "\n")
            return .failure(CasesFileError("navpolicyd test: cases file \(path) is malformed:\n\(lines)"))
        }
    }

    struct CasesFileError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
