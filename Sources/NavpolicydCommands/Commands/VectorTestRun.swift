import Foundation
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient
import PolicyService

/// `navpolicyd test --vectors FILE...`: every conformance vector file (config/conformance/)
/// decided by this engine, loaded from its bundle as an app loads it, including the requests it
/// must refuse (`invalidRequest`), which a `test` cases file cannot express.
enum VectorTestRun {
    /// A vector file read and its bundle loaded, ready to run.
    private struct LoadedFile {
        var path: String
        var vector: ConformanceVector
        var policy: CompiledPolicy
    }

    /// Why a file cannot be run: the message for stderr.
    private struct FileProblem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// One case that did not get its expected answer.
    private struct Failure {
        var file: String
        var testCase: ConformanceVector.Case
        var actual: ConformanceVector.Answer
        /// Why the engine refused the request, for an `invalidRequest` answer.
        var refusal: String?
        var problems: [String]
        var trace: [TraceStep]?
    }

    /// Runs the files in order. Every file is read and checked first: one malformed file is a
    /// usage error (2) before any case runs, as a malformed `test` table is.
    static func run(paths: [String], maxBytes: Int, format: OutputFormat, explains: Bool, output: Output) -> Int32 {
        var files: [LoadedFile] = []
        var problems: [String] = []
        for path in paths {
            switch load(path, maxBytes: maxBytes) {
            case .success(let file): files.append(file)
            case .failure(let problem): problems.append(problem.message)
            }
        }
        guard problems.isEmpty else {
            for problem in problems { output.err(problem) }
            return ExitCode.usage
        }
        var counts: [(file: LoadedFile, passed: Int, failed: Int)] = []
        var failures: [Failure] = []
        for file in files {
            let found = failuresIn(file, explains: explains)
            counts.append((file, file.vector.cases.count - found.count, found.count))
            if format == .text {
                for failure in found { report(failure, explains: explains, to: output) }
                let count = counts[counts.count - 1]
                output.out(
                    TerminalText.escaped(
                        "\(file.path) (\(file.vector.name)): \(count.passed) passed, \(count.failed) failed"))
            }
            failures += found
        }
        let passed = counts.reduce(0) { $0 + $1.passed }
        let status = failures.isEmpty ? ExitCode.success : ExitCode.failure
        guard format == .json else {
            output.out("total: \(passed) passed, \(failures.count) failed (\(files.count) file\(files.count == 1 ? "" : "s"))")
            return status
        }
        let fileReports: [JSONValue] = counts.map { count in
            .object([
                "file": .string(count.file.path), "name": .string(count.file.vector.name),
                "passed": .number(Double(count.passed)), "failed": .number(Double(count.failed)),
            ])
        }
        let report: JSONObject = [
            "passed": .number(Double(passed)), "failed": .number(Double(failures.count)), "files": .array(fileReports),
            "failures": .array(failures.map { .object(jsonObject($0, explains: explains)) }),
        ]
        output.out(report.serializedJSON)
        return status
    }

    /// Reads, decodes and loads one file; the message for stderr when it cannot be used.
    private static func load(_ path: String, maxBytes: Int) -> Result<LoadedFile, FileProblem> {
        let prefix = "navpolicyd test: vector file \(TerminalText.escaped(path))"
        let bytes: [UInt8]
        do throws(ConfigFile.ReadError) {
            bytes = try ConfigFile.read(path, maxBytes: maxBytes)
        } catch {
            return .failure(FileProblem("\(prefix): \(error.reason)"))
        }
        let document: JSONValue
        do {
            // Duplicate members are refused by the parser: a port's parser may keep either one.
            document = try JSONParser().parse(bytes)
        } catch {
            return .failure(FileProblem("\(prefix): invalid JSON at \(error)"))
        }
        let vector: ConformanceVector
        switch ConformanceVector.decode(document) {
        case .success(let decoded): vector = decoded
        case .failure(let error):
            let lines = error.issues.map { "  " + TerminalText.escaped("\($0)") }.joined(separator: "\n")
            return .failure(FileProblem("\(prefix) is malformed:\n\(lines)"))
        }
        do {
            // Unsigned, as the generator writes it: no trust configured, so no signature is
            // required; format, expiry and compile are checked exactly as in an app.
            let bundle = try VerifiedBundle(bytes: vector.bundle, signature: nil, trust: BundleTrust())
            return .success(LoadedFile(path: path, vector: vector, policy: bundle.policy))
        } catch {
            return .failure(
                FileProblem("\(prefix): /bundle: " + TerminalText.escaped("refused, as an app would refuse it: \(error)")))
        }
    }

    private static func failuresIn(_ file: LoadedFile, explains: Bool) -> [Failure] {
        var failures: [Failure] = []
        for testCase in file.vector.cases {
            let actual: ConformanceVector.Answer
            var refusal: String?
            do {
                actual = .decision(ConformanceVector.DecisionFields(try file.policy.decide(testCase.request)))
            } catch {
                actual = .invalidRequest
                refusal = "\(error)"
            }
            let problems = testCase.expect.mismatches(actual)
            guard !problems.isEmpty else { continue }
            // The trace is asked for only for failures: an explained decision costs more.
            let trace = explains ? (try? file.policy.decide(testCase.request, explain: true))?.trace : nil
            failures.append(
                Failure(
                    file: file.path, testCase: testCase, actual: actual, refusal: refusal, problems: problems, trace: trace))
        }
        return failures
    }

    private static func actualJSON(_ failure: Failure) -> JSONObject {
        var object = failure.actual.jsonObject
        if let refusal = failure.refusal { object.append("error", .string(refusal)) }
        return object
    }

    private static func report(_ failure: Failure, explains: Bool, to output: Output) {
        let style = TerminalStyle(enabled: output.usesColour)
        let testCase = failure.testCase
        let label =
            "\(failure.file) \(testCase.pointer) \"\(testCase.name)\"" + (testCase.caseClass.map { " [\($0)]" } ?? "")
        var lines = [style.red("FAIL") + " " + TerminalText.escaped(label)]
        lines += failure.problems.map { "  " + TerminalText.escaped($0) }
        lines.append("  request: " + TerminalText.escaped(testCase.requestJSON.serializedJSON))
        lines.append("  expected: " + TerminalText.escaped(testCase.expect.jsonObject.serializedJSON))
        lines.append("  actual: " + TerminalText.escaped(actualJSON(failure).serializedJSON))
        if explains, let trace = failure.trace {
            lines.append("  trace:")
            for step in trace {
                let outcome = step.outcome.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                lines.append("    " + TerminalText.escaped("\(outcome) \(step.handler): \(step.reason)"))
            }
        }
        for line in lines { output.out(line) }
    }

    private static func jsonObject(_ failure: Failure, explains: Bool) -> JSONObject {
        let testCase = failure.testCase
        var object: JSONObject = [
            "file": .string(failure.file), "case": .string("\(testCase.pointer)"), "name": .string(testCase.name),
            "class": testCase.caseClass.map(JSONValue.string) ?? .null, "url": .string(testCase.request.url),
            "request": .object(testCase.requestJSON), "expected": .object(testCase.expect.jsonObject),
            "actual": .object(actualJSON(failure)), "problems": .array(failure.problems.map(JSONValue.string)),
        ]
        if explains, let trace = failure.trace { object.append("trace", .array(trace.map { .object($0.jsonObject) })) }
        return object
    }
}
