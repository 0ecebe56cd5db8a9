import Foundation
import JSONSupport
import NavigationPolicy

/// `navpolicyd canonicalize URL…`: what the policy engine sees for a URL.
///
/// Shows the WHATWG href and the comparison forms of host and path, which is what a
/// policy author needs to understand why a rule did or did not match. The `--ndjson`
/// mode is the machine interface used by the differential fuzzing script.
enum CanonicalizeCommand {
    static let command = CommandLineTool.Command(
        name: "canonicalize",
        summary: "Show a URL's WHATWG serialization and the host/path forms handlers match",
        usage: """
            Usage: navpolicyd canonicalize URL...
                   navpolicyd canonicalize --ndjson < inputs

            For each URL prints one JSON object:
              {"input":…,"href":…,"scheme":…,"matchHost":…,"matchPath":…}
            With --ndjson, reads one JSON string literal per line on stdin and prints
              {"input":…,"href":…} or {"input":…,"error":…} per line, in order.

            Exit status: 0; 2 when a URL argument is invalid (all arguments are still printed).
            """,
        run: run)

    static let spec = ArgumentSpec(valueOptions: [], flagOptions: ["ndjson"])

    static func run(_ arguments: [String], _ output: Output) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try spec.parse(arguments)
        } catch {
            return CommandLineTool.usageFailure("canonicalize", error, output: output)
        }
        if parsed.has("ndjson") { return runLines(output) }
        guard !parsed.positionals.isEmpty else {
            return CommandLineTool.usageFailure("canonicalize", UsageError("missing URL"), output: output)
        }
        var status = ExitCode.success
        for input in parsed.positionals {
            var object: JSONObject = ["input": .string(input)]
            do {
                let canonical = try CanonicalRequest(NavigationRequest(url: input))
                object.append("href", .string(canonical.href))
                object.append("scheme", .string(canonical.scheme))
                object.append("matchHost", canonical.matchHost.map(JSONValue.string) ?? .null)
                object.append("matchPath", .string(canonical.matchPath.text))
            } catch {
                object.append("error", .string(error.reason))
                status = ExitCode.usage
            }
            output.out(object.serializedJSON)
        }
        return status
    }

    private static func runLines(_ output: Output) -> Int32 {
        let parser = JSONParser(maximumDepth: 1)
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            guard case .string(let input)? = try? parser.parse(line) else {
                output.out((["error": .string("input line is not a JSON string")] as JSONObject).serializedJSON)
                continue
            }
            var object: JSONObject = ["input": .string(input)]
            do {
                object.append("href", .string(try URLRecord.parse(input).href))
            } catch {
                object.append("error", .string(String(describing: error)))
            }
            output.out(object.serializedJSON)
        }
        return ExitCode.success
    }
}
