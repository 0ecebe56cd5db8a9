import Foundation
import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import PolicyService

/// `navpolicyd diff`: replays recorded navigations against two policies and reports what changes.
package struct DiffCommand: ParsableCommand {
    static let config = ConfigOptions.requiredConfig("NEW.json", help: "the candidate policy")
    static let against = Option.text(
        "against", "OLD.json", kind: .file,
        help: """
            the current policy (default: $NAVPOLICY_CONFIG, else config/navpolicy.json, the file the running daemon \
            reads); with --log, a note on stderr says when lines were decided under another revision than this file's
            """)
    static let log = Option.text(
        "log", "FILE", kind: .file, help: "the daemon's decision log (one JSON object per line; its \"request\" is replayed)")
    static let urls = Option.text(
        "urls", "FILE", kind: .file, help: "one URL per line (blank lines and lines starting with # are skipped)")
    static let cases = Option.text("cases", "FILE", kind: .file, help: "a navpolicyd test table")
    static let format = OutputFormat.option(default: .text, text: "groups with examples")
    static let examples = Option.integer(
        "examples", "N", in: 0...100, phrase: "a whole number from 0 to 100", help: "examples per group", default: 3)
    static let failOnChange = Flag("fail-on-change", help: "exit 1 when anything changes")

    package static let declaration = CommandDeclaration(
        name: "diff",
        summary: "Replay navigations against a candidate policy and report every change",
        discussion: """
            Decides every recorded navigation under both policies and reports each request whose
            decision, handler, action or location changes, grouped as "old handler → new handler"
            with counts and a few examples each. Inputs are streamed: a log of any length is read
            in bounded memory; on a terminal, a progress line counts the lines read.
            """,
        notes: """
            Exit status: 0 done (or no change with --fail-on-change); 1 changes with --fail-on-change;
            2 unreadable or malformed input, invalid config, bad usage.
            """,
        options: [
            config.declaration, ConfigOptions.maxBytes.declaration, against.declaration, log.declaration, urls.declaration,
            cases.declaration,
            format.declaration, examples.declaration, failOnChange.declaration,
        ],
        exclusiveGroups: [ExclusiveGroup(["log", "urls", "cases"], isRequired: true)])

    package var candidatePath: String
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var againstPath: String?
    package var input: ReplaySource
    package var format: OutputFormat
    package var examplesPerGroup: Int
    package var failsOnChange: Bool

    /// What `diff` replays; the parser has made sure exactly one was given.
    package enum ReplaySource: Sendable, Equatable {
        case log(String), urls(String), cases(String)
    }

    package init(_ arguments: ParsedArguments) {
        candidatePath = arguments[Self.config] ?? ""
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        againstPath = arguments[Self.against]
        if let path = arguments[Self.log] {
            input = .log(path)
        } else if let path = arguments[Self.urls] {
            input = .urls(path)
        } else {
            input = .cases(arguments[Self.cases] ?? "")
        }
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .text
        examplesPerGroup = arguments[Self.examples] ?? 3
        failsOnChange = arguments[Self.failOnChange]
    }

    /// The size cap's value (flag or environment) is checked before anything runs.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
    }

    package func run(_ output: Output) -> Int32 {
        let json = format == .json
        let newPolicy: CompiledPolicy
        let oldPolicy: CompiledPolicy
        let againstGiven = self.againstPath != nil
        let againstPath = ConfigLoader.resolvePath(flag: self.againstPath)
        let againstRevision: String
        do {
            newPolicy = try ConfigLoader.load(candidatePath, maxBytes: maxConfigBytes)
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        do {
            oldPolicy = try ConfigLoader.load(againstPath, maxBytes: maxConfigBytes)
            againstRevision = PolicyBundle.revision(of: try ConfigLoader.read(againstPath, maxBytes: maxConfigBytes))
        } catch {
            Self.reportAgainst(error, given: againstGiven, to: output)
            return ExitCode.usage
        }
        var diff = PolicyDiff(old: oldPolicy, new: newPolicy, examplesPerGroup: examplesPerGroup)
        // Lines decided under another revision than --against: the "old" side is then not what users saw.
        var otherRevision: (count: Int, first: String)?
        // Log lines whose URLs are not the ones decided (redacted, truncated): counted, not replayed.
        var notReplayed: [ReplayInput.Inexact: Int]?
        do throws(ReplayError) {
            switch input {
            case .log(let path):
                notReplayed = [:]
                try ReplayInput.eachLine(path) { line, number throws(ReplayError) in
                    let (request, revision): (NavigationRequest, String?)
                    switch try ReplayInput.logRequest(line, path: path, line: number) {
                    case .replay(let replayed, let logged): (request, revision) = (replayed, logged)
                    case .inexact(let reason):
                        notReplayed?[reason, default: 0] += 1
                        return
                    }
                    diff.add(request)
                    if let revision, revision != againstRevision {
                        otherRevision = ((otherRevision?.count ?? 0) + 1, otherRevision?.first ?? revision)
                    }
                    if number % 100_000 == 0 { output.progress("\(number) lines…") }
                }
            case .urls(let path):
                try ReplayInput.eachLine(path) { line, number throws(ReplayError) in
                    let url = try ReplayInput.text(line, path: path, line: number).trimmingCharacters(in: .whitespaces)
                    if !url.isEmpty, !url.hasPrefix("#") { diff.add(NavigationRequest(url: url)) }
                    if number % 100_000 == 0 { output.progress("\(number) lines…") }
                }
            case .cases(let path):
                for request in try ReplayInput.caseRequests(path) { diff.add(request) }
            }
        } catch {
            output.err("navpolicyd diff: \(error.message)")
            return ExitCode.usage
        }
        output.endProgress()
        if let otherRevision {
            output.err(
                "navpolicyd diff: note: \(otherRevision.count) log lines were decided under another policy revision "
                    + "(first: \(otherRevision.first)) than --against \(againstPath) (\(againstRevision)); "
                    + "pass the file that was live then as --against to compare with what users saw")
        }
        if json {
            var object = diff.jsonObject
            if let notReplayed { object.append("notReplayed", Self.notReplayedJSON(notReplayed)) }
            output.out(object.serializedJSON)
        } else {
            Self.printText(diff, output: output)
            // Said only when lines were skipped: a plain log's output ends with the totals.
            if let notReplayed, !notReplayed.isEmpty { output.out(Self.notReplayedText(notReplayed)) }
        }
        return failsOnChange && diff.changed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// A failure to load the policy compared against, blamed on what chose it: `--against`, or,
    /// when it was not given, the default it fell back to. `--config` (the candidate, which
    /// loaded) is never named: users read "set --config" as their candidate being wrong.
    private static func reportAgainst(_ error: ConfigLoader.LoadError, given: Bool, to output: Output) {
        let fromEnvironment = !(ProcessInfo.processInfo.environment["NAVPOLICY_CONFIG"] ?? "").isEmpty
        func subject(_ path: String) -> String {
            given
                ? "--against \(path)"
                : "--against is missing, and the current policy it defaults to "
                    + "(\(path), \(fromEnvironment ? "from $NAVPOLICY_CONFIG" : "the default path"))"
        }
        let hint = given ? "" : "; pass --against OLD.json, the policy the running daemon serves"
        ConfigLoader.report(error, command: "diff", subject: subject, hint: hint, to: output)
    }

    private static func printText(_ diff: PolicyDiff, output: Output) {
        for group in diff.sortedGroups {
            output.out("\(group.from) → \(group.to): \(group.count)")
            for example in group.examples {
                output.out("  \(example.url)")
                output.out("    old: \(summary(example.old))")
                output.out("    new: \(summary(example.new))")
            }
        }
        output.out("\(diff.total) replayed, \(diff.changed) changed, \(diff.invalid) invalid")
    }

    /// `{"redacted": n, "truncated": m}`, both always present.
    private static func notReplayedJSON(_ counts: [ReplayInput.Inexact: Int]) -> JSONValue {
        .object(JSONObject(ReplayInput.Inexact.allCases.map { JSONMember($0.rawValue, .number(Double(counts[$0] ?? 0))) }))
    }

    /// `3 log lines not replayed exactly (2 redacted, 1 truncated)`: they are not counted as changes.
    private static func notReplayedText(_ counts: [ReplayInput.Inexact: Int]) -> String {
        let parts = ReplayInput.Inexact.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }
        return "\(counts.values.reduce(0, +)) log lines not replayed exactly (\(parts.joined(separator: ", ")))"
    }

    private static func summary(_ decision: Decision) -> String {
        var text = decision.verdict.rawValue + " by " + (decision.handler ?? "(default)")
        if let action = decision.action { text += " action=\(action)" }
        if let location = decision.location { text += " location=\(location)" }
        return text
    }
}
