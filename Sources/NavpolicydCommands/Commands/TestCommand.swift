import Foundation
import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import PolicyService

/// `navpolicyd test CASES.json`: table-driven policy tests.
package struct TestCommand: ParsableCommand {
    static let explain = Flag("explain", help: "print the decision trace of each failing case")
    static let coverage = Flag(
        "coverage", help: "report, per handler and per hosts/paths/pathPrefixes/pathPatterns entry, whether any case exercised it"
    )
    static let failUnder = Option.decimal(
        "fail-under", "PERCENT", in: DecimalRange(0, 100), phrase: "a percentage from 0 to 100",
        help: "with --coverage: exit 1 when coverage is below PERCENT (0-100)")
    static let format = OutputFormat.option(default: .text, text: "failures and a summary line, coloured on a terminal")
    static let vectors = Flag(
        "vectors",
        help: "run conformance vector files (config/conformance/*.json), each against its own bundle, instead of a table")

    package static let declaration = CommandDeclaration(
        name: "test",
        summary: "Run table-driven policy tests (expected decisions) against a policy",
        discussion: """
            CASES.json is an array of cases:
              [{"url": "https://app.example.com/logout", "navigationType": "linkActivated",
                "targetFrame": "main", "method": "GET", "name": "optional label",
                "expect": {"decision": "cancel", "handler": "logout", "action": "logout", "location": null}}]
            "expect.decision" is required; handler, action and location are checked when present
            (null means the field must be null).

            A case whose expect.handler names no handler in the config, and an empty file, are errors.

            --vectors FILE... runs conformance vector files instead (config/conformance/README.md):
            each file carries its policy bundle, loaded as an app loads it, and cases whose
            expect is a decision (decision, handler, action, location, url, shadow, compared
            exactly) or {"decision": "cancel", "invalidRequest": true}, a request the engine
            must refuse. The one command CI runs for this engine (and a port's runner mirrors):
              navpolicyd test --vectors config/conformance/*.json
            """,
        notes: """
            Prints each failure with expected and actual values; the last line is "N passed, M failed"
            (with --vectors, a line per file and "total: N passed, M failed (K files)").
            Exit status: 0 all passed; 1 some failed or coverage under --fail-under;
            2 unreadable or malformed files, invalid config or bundle.
            """,
        options: [
            ConfigOptions.config.declaration, ConfigOptions.maxBytes.declaration, explain.declaration, coverage.declaration,
            failUnder.declaration, format.declaration, vectors.declaration,
        ] + BundleInput.declarations,
        positional: PositionalDeclaration(
            name: "CASES.json|VECTOR.json", help: "the table of cases, or with --vectors the vector files",
            arity: .oneOrMore, kind: .file, missingMessage: "expected one CASES.json file (with --vectors, the vector files)"))

    package var configPath: String?
    /// `--bundle FILE`: decide with the bundle an app ships instead of a config.
    var bundleInput: BundleInput?
    private var bundleKeyOptionsGiven: Bool
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var casesPath: String
    /// Every operand: the one table, or with `--vectors` the vector files in order.
    package var paths: [String]
    package var runsVectors: Bool
    package var explains: Bool
    package var reportsCoverage: Bool
    package var failUnder: Double?
    package var format: OutputFormat

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        bundleInput = BundleInput.parse(arguments)
        bundleKeyOptionsGiven = BundleInput.keyOptionsGiven(arguments)
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        casesPath = arguments.positionals.first ?? ""
        paths = arguments.positionals
        runsVectors = arguments[Self.vectors]
        explains = arguments[Self.explain]
        reportsCoverage = arguments[Self.coverage]
        failUnder = arguments[Self.failUnder]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .text
    }

    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
        try BundleInput.validate(bundleInput, keyOptionsGiven: bundleKeyOptionsGiven, configGiven: configPath != nil)
        if failUnder != nil, !reportsCoverage { throw .usage("--fail-under needs --coverage") }
        guard runsVectors else {
            if paths.count > 1 {
                throw .usage("expected one CASES.json file, got \(paths.count); to run conformance vector files, add --vectors")
            }
            return
        }
        // A vector file carries its own policy, and coverage is of one policy: neither applies.
        if configPath != nil || bundleInput != nil || bundleKeyOptionsGiven {
            throw .usage("--vectors: each vector file carries its policy bundle; drop --config and --bundle")
        }
        if reportsCoverage { throw .usage("--coverage is for a table against one policy, not --vectors") }
    }

    package func run(_ output: Output) -> Int32 {
        if runsVectors {
            return VectorTestRun.run(
                paths: paths, maxBytes: maxConfigBytes, format: format, explains: explains, output: output)
        }
        guard
            let policy = BundleInput.policy(
                bundle: bundleInput, configPath: configPath, maxConfigBytes: maxConfigBytes, command: "test",
                output: output, use: reportsCoverage ? .inspecting : .deciding)
        else { return ExitCode.usage }
        let cases: [PolicyTestCase]
        switch Self.loadCases(casesPath) {
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
        var failures: [JSONValue] = []
        var coverage = PolicyCoverage(policy: policy)
        for testCase in cases {
            let problems: [String]
            let actual: Decision?
            var trace: [TraceStep] = []
            do {
                // Explained decisions carry the matched entries coverage counts; same verdicts.
                let decision = try policy.decide(testCase.request, explain: true)
                coverage.record(decision)
                trace = decision.trace ?? []
                var plain = decision
                plain.trace = nil
                problems = testCase.mismatches(plain)
                actual = plain
            } catch {
                problems = ["the request is invalid: \(error)"]
                actual = nil
            }
            guard !problems.isEmpty else { continue }
            failed += 1
            if format == .json {
                var failure: JSONObject = [
                    "name": .string(testCase.label), "url": .string(testCase.request.url),
                    "problems": .array(problems.map(JSONValue.string)), "actual": actual.map { .object($0.jsonObject) } ?? .null,
                ]
                if explains { failure.append("trace", .array(trace.map { .object($0.jsonObject) })) }
                failures.append(.object(failure))
                continue
            }
            let style = TerminalStyle(enabled: output.usesColour)
            output.out(style.red("FAIL") + " \(testCase.label): \(testCase.request.url)")
            for problem in problems { output.out("  \(problem)") }
            output.out("  actual: \(actual.map { $0.jsonObject.serializedJSON } ?? "(no decision)")")
            if explains {
                output.out("  trace:")
                for step in trace {
                    output.out(
                        "    \(step.outcome.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(step.handler): \(step.reason)"
                    )
                }
            }
        }
        var status = failed == 0 ? ExitCode.success : ExitCode.failure
        let underThreshold = reportsCoverage && failUnder.map { coverage.percent < $0 } == true
        if underThreshold { status = ExitCode.failure }
        if format == .json {
            var report: JSONObject = [
                "passed": .number(Double(cases.count - failed)), "failed": .number(Double(failed)),
                "failures": .array(failures),
            ]
            if reportsCoverage {
                let items: [JSONValue] = coverage.items.map {
                    .object([
                        "handler": .string($0.handler), "entry": $0.entry.map(JSONValue.string) ?? .null,
                        "covered": .bool($0.covered),
                    ])
                }
                report.append("coverage", .object(["percent": .number(coverage.percent), "items": .array(items)]))
                if let failUnder { report.append("failUnder", .number(failUnder)) }
            }
            output.out(report.serializedJSON)
            return status
        }
        output.out("\(cases.count - failed) passed, \(failed) failed")
        if reportsCoverage {
            Self.report(coverage, to: output)
            if let failUnder, underThreshold {
                output.out(
                    "coverage \(Self.percentText(coverage.percent))% is under --fail-under \(Self.percentText(failUnder))%")
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
        output.out(
            "coverage: \(Self.percentText(coverage.percent))% (\(covered) of \(coverage.items.count) handlers and entries)")
    }

    private static func percentText(_ percent: Double) -> String {
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
