import Foundation
import JSONSupport
import NavigationPolicy

/// `navpolicyd test CASES.json`: table-driven policy tests.
enum TestCommand {
    static let command = CommandLineTool.Command(
        name: "test",
        summary: "Run table-driven policy tests (expected decisions) against a policy",
        usage: """
            Usage: navpolicyd test [--config FILE] [--explain] [--coverage [--fail-under PERCENT]] CASES.json

            CASES.json is an array of cases:
              [{"url": "https://app.example.com/logout", "navigationType": "linkActivated",
                "targetFrame": "main", "method": "GET", "name": "optional label",
                "expect": {"decision": "cancel", "handler": "logout", "action": "logout", "location": null}}]
            "expect.decision" is required; handler, action and location are checked when present
            (null means the field must be null).

            A case whose expect.handler names no handler in the config, and an empty file, are errors.

            Options:
              --explain              print the decision trace of each failing case
              --coverage             report, per handler and per hosts/paths/pathPrefixes/pathPatterns
                                     entry, whether any case exercised it
              --fail-under PERCENT   with --coverage: exit 1 when coverage is below PERCENT (0-100)

            Prints each failure with expected and actual values; the last line is "N passed, M failed".
            Exit status: 0 all passed; 1 some failed or coverage under --fail-under;
            2 unreadable or malformed files, invalid config.
            """,
        run: run)

    static let spec = ArgumentSpec(
        valueOptions: ["config", "fail-under", ConfigLoader.maxBytesOption], flagOptions: ["explain", "coverage"])

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
        var failUnder: Double?
        if let text = parsed.value("fail-under") {
            guard let value = Double(text), (0...100).contains(value), parsed.has("coverage") else {
                let problem =
                    parsed.has("coverage")
                    ? "--fail-under takes a percentage from 0 to 100, not '\(text)'" : "--fail-under needs --coverage"
                return CommandLineTool.usageFailure("test", UsageError(problem), output: output)
            }
            failUnder = value
        }
        guard let maxConfigBytes = ConfigLoader.maxBytes(parsed, command: "test", output: output) else { return ExitCode.usage }
        let policy: CompiledPolicy
        do {
            policy = try ConfigLoader.load(ConfigLoader.resolvePath(flag: parsed.value("config")), maxBytes: maxConfigBytes)
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

        guard !cases.isEmpty else {
            output.err("navpolicyd test: cases file \(casesPath) has no cases; an empty table tests nothing")
            return ExitCode.usage
        }
        let names = Set(policy.links.map(\.name))
        let unknown = cases.enumerated().compactMap { index, testCase -> String? in
            guard case .some(.some(let handler)) = testCase.expect.handler, !names.contains(handler) else { return nil }
            return "  /\(index)/expect/handler: \"\(handler)\" is not a handler in the config (handlers: "
                + policy.links.map { "\"\($0.name)\"" }.joined(separator: ", ") + ")"
        }
        guard unknown.isEmpty else {
            output.err("navpolicyd test: cases file \(casesPath) names unknown handlers:\n" + unknown.joined(separator: "\n"))
            return ExitCode.usage
        }

        var failed = 0
        var coverage = PolicyCoverage(policy: policy)
        for testCase in cases {
            let problems: [String]
            let actual: String
            var trace: [TraceStep] = []
            do {
                // Explained decisions carry the matched entries coverage counts; same verdicts.
                let decision = try policy.decide(testCase.request, explain: true)
                coverage.record(decision)
                trace = decision.trace ?? []
                var plain = decision
                plain.trace = nil
                problems = testCase.mismatches(plain)
                actual = plain.jsonObject.serializedJSON
            } catch {
                problems = ["the request is invalid: \(error)"]
                actual = "(no decision)"
            }
            guard !problems.isEmpty else { continue }
            failed += 1
            output.out("FAIL \(testCase.label): \(testCase.request.url)")
            for problem in problems { output.out("  \(problem)") }
            output.out("  actual: \(actual)")
            if parsed.has("explain") {
                output.out("  trace:")
                for step in trace {
                    output.out(
                        "    \(step.outcome.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(step.handler): \(step.reason)"
                    )
                }
            }
        }
        output.out("\(cases.count - failed) passed, \(failed) failed")
        var status = failed == 0 ? ExitCode.success : ExitCode.failure
        if parsed.has("coverage") {
            report(coverage, to: output)
            if let failUnder, coverage.percent < failUnder {
                output.out("coverage \(format(coverage.percent))% is under --fail-under \(format(failUnder))%")
                status = ExitCode.failure
            }
        }
        return status
    }

    private static func report(_ coverage: PolicyCoverage, to output: Output) {
        output.out("coverage:")
        for item in coverage.items {
            let mark = item.covered ? "covered    " : "NOT COVERED"
            output.out("  \(mark) \(item.handler)" + (item.entry.map { " \($0)" } ?? ""))
        }
        let covered = coverage.items.filter(\.covered).count
        output.out("coverage: \(format(coverage.percent))% (\(covered) of \(coverage.items.count) handlers and entries)")
    }

    private static func format(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(format: "%.1f", percent)
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
