import Foundation
import JSONSupport
import NavigationPolicy
import PolicyService

/// `navpolicyd diff`: replays recorded navigations against two policies and reports what changes.
enum DiffCommand {
    static let command = CommandLineTool.Command(
        name: "diff",
        summary: "Replay navigations against a candidate policy and report every change",
        usage: """
            Usage: navpolicyd diff --config NEW.json [--against OLD.json]
                                   (--log decisions.ndjson | --urls FILE | --cases FILE)
                                   [--format text|json] [--examples N] [--fail-on-change]

            Decides every recorded navigation under both policies and reports each request whose
            decision, handler, action or location changes, grouped as "old handler → new handler"
            with counts and a few examples each. Inputs are streamed: a log of any length is read
            in bounded memory.

              --log FILE         the daemon's decision log (one JSON object per line; its "request" is replayed)
              --urls FILE        one URL per line (blank lines and lines starting with # are skipped)
              --cases FILE       a navpolicyd test table
              --against FILE     the current policy (default: $NAVPOLICY_CONFIG, else config/navpolicy.json,
                                 the file the running daemon reads); with --log, a note on stderr says
                                 when lines were decided under another revision than this file's
              --examples N       examples per group (default 3)
              --fail-on-change   exit 1 when anything changes

            Exit status: 0 done (or no change with --fail-on-change); 1 changes with --fail-on-change;
            2 unreadable or malformed input, invalid config, bad usage.
            """,
        run: run)

    static let spec = ArgumentSpec(
        valueOptions: ["config", "against", "log", "urls", "cases", "format", "examples", ConfigLoader.maxBytesOption],
        flagOptions: ["fail-on-change"])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        let json: Bool
        var examples = 3
        do throws(UsageError) {
            parsed = try spec.parse(arguments)
            guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
            guard parsed.value("config") != nil else { throw UsageError("--config NEW.json is required (the candidate policy)") }
            let inputs = ["log", "urls", "cases"].filter { parsed.value($0) != nil }
            guard inputs.count == 1 else { throw UsageError("give exactly one of --log, --urls or --cases") }
            json = try OutputFormat.isJSON(parsed)
            if let text = parsed.value("examples") {
                guard let value = Int(text), (0...100).contains(value) else {
                    throw UsageError("--examples takes a whole number from 0 to 100, not '\(text)'")
                }
                examples = value
            }
        } catch {
            return CommandLineTool.usageFailure("diff", error, output: output)
        }
        let newPolicy: CompiledPolicy
        let oldPolicy: CompiledPolicy
        let againstPath = ConfigLoader.resolvePath(flag: parsed.value("against"))
        let againstRevision: String
        guard let maxConfigBytes = ConfigLoader.maxBytes(parsed, command: "diff", output: output) else { return ExitCode.usage }
        do {
            newPolicy = try ConfigLoader.load(parsed.value("config") ?? "", maxBytes: maxConfigBytes)
            oldPolicy = try ConfigLoader.load(againstPath, maxBytes: maxConfigBytes)
            againstRevision = "sha256:" + SHA256.hexDigest(try ConfigLoader.read(againstPath, maxBytes: maxConfigBytes))
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        var diff = PolicyDiff(old: oldPolicy, new: newPolicy, examplesPerGroup: examples)
        // Lines decided under another revision than --against: the "old" side is then not what users saw.
        var otherRevision: (count: Int, first: String)?
        let progress = OutputFormat.isTerminal && !json
        do throws(ReplayError) {
            if let path = parsed.value("log") {
                try ReplayInput.eachLine(path) { line, number throws(ReplayError) in
                    let (request, revision) = try ReplayInput.logRequest(line, path: path, line: number)
                    diff.add(request)
                    if let revision, revision != againstRevision {
                        otherRevision = ((otherRevision?.count ?? 0) + 1, otherRevision?.first ?? revision)
                    }
                    if progress, number % 100_000 == 0 { FileHandle.standardError.write(Data("\r\(number) lines…".utf8)) }
                }
            } else if let path = parsed.value("urls") {
                try ReplayInput.eachLine(path) { line, _ throws(ReplayError) in
                    let url = line.trimmingCharacters(in: .whitespaces)
                    if !url.isEmpty, !url.hasPrefix("#") { diff.add(NavigationRequest(url: url)) }
                }
            } else if let path = parsed.value("cases") {
                for request in try ReplayInput.caseRequests(path) { diff.add(request) }
            }
        } catch {
            output.err("navpolicyd diff: \(error.message)")
            return ExitCode.usage
        }
        if progress { FileHandle.standardError.write(Data("\r".utf8)) }
        if let otherRevision {
            output.err(
                "navpolicyd diff: note: \(otherRevision.count) log lines were decided under another policy revision "
                    + "(first: \(otherRevision.first)) than --against \(againstPath) (\(againstRevision)); "
                    + "pass the file that was live then as --against to compare with what users saw")
        }
        if json {
            output.out(diff.jsonObject.serializedJSON)
        } else {
            printText(diff, output: output)
        }
        return parsed.has("fail-on-change") && diff.changed > 0 ? ExitCode.failure : ExitCode.success
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

    private static func summary(_ decision: Decision) -> String {
        var text = decision.verdict.rawValue + " by " + (decision.handler ?? "(default)")
        if let action = decision.action { text += " action=\(action)" }
        if let location = decision.location { text += " location=\(location)" }
        return text
    }
}
