import Foundation
import JSONSupport
import NavigationPolicy

/// `navpolicyd canonicalize URL…`: what the policy engine sees for a URL.
///
/// Shows the WHATWG href and the comparison forms of host and path, which is what a
/// policy author needs to understand why a rule did or did not match. The `--ndjson`
/// mode is the machine interface used by the differential fuzzing script.
package struct CanonicalizeCommand: ParsableCommand {
    static let ndjson = Flag(
        "ndjson",
        help: "read one JSON string literal per line on stdin and print {\"input\",\"href\"} or {\"input\",\"error\"} per line")
    static let format = OutputFormat.option(default: .json, text: "aligned fields, coloured on a terminal")

    package static let declaration = CommandDeclaration(
        name: "canonicalize",
        summary: "Show a URL's WHATWG serialization and the host/path forms handlers match",
        discussion: """
            For each URL prints one JSON object:
              {"input":…,"href":…,"scheme":…,"matchHost":…,"matchPath":…}
            and "matchPathDecodedSeparators" after them when the path has %2F or %5C: its
            second reading, which the chain decides too (the one that cancels wins).
            With --ndjson (navpolicyd canonicalize --ndjson < inputs), reads one JSON string
            literal per line on stdin and prints {"input":…,"href":…} or {"input":…,"error":…}
            per line, in order.
            """,
        notes: """
            Exit status: 0; 2 when a URL argument is invalid (all arguments are still printed),
            or a --ndjson line is longer than 1 MiB.
            """,
        options: [ndjson.declaration, format.declaration],
        positional: PositionalDeclaration(
            name: "URL", help: "the URLs to canonicalize (none with --ndjson)", arity: .zeroOrMore,
            missingMessage: "missing URL"))

    package var inputs: [String]
    package var readsLines: Bool
    package var format: OutputFormat

    package init(_ arguments: ParsedArguments) {
        inputs = arguments.positionals
        readsLines = arguments[Self.ndjson]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .json
    }

    package mutating func validate() throws(CommandError) {
        if !readsLines, inputs.isEmpty { throw .usage("missing URL") }
        if readsLines, let first = inputs.first { throw .usage("unexpected argument '\(first)' (--ndjson reads stdin)") }
        if readsLines, format == .text { throw .usage("--ndjson prints JSON lines; it takes no --format text") }
    }

    package func run(_ output: Output) -> Int32 {
        if readsLines { return Self.runLines(output) }
        var status = ExitCode.success
        for input in inputs {
            var object: JSONObject = ["input": .string(input)]
            do {
                let canonical = try CanonicalRequest(NavigationRequest(url: input))
                object.append("href", .string(canonical.href))
                object.append("scheme", .string(canonical.scheme))
                object.append("matchHost", canonical.matchHost.map(JSONValue.string) ?? .null)
                object.append("matchPath", .string(canonical.matchPath.text))
                if let decoded = canonical.decodedSeparatorPath {
                    object.append("matchPathDecodedSeparators", .string(decoded.text))
                }
            } catch {
                object.append("error", .string(error.reason))
                status = ExitCode.usage
            }
            if format == .json {
                output.out(object.serializedJSON)
            } else {
                printText(object, to: output)
            }
        }
        return status
    }

    /// One aligned `field  value` line per member, a blank line between URLs.
    private func printText(_ object: JSONObject, to output: Output) {
        let style = TerminalStyle(enabled: output.usesColour)
        let width = (object.members.map(\.key.count).max() ?? 0) + 2
        for member in object.members {
            let value: String
            switch member.value {
            case .string(let text): value = member.key == "error" ? style.red(text) : text
            case .null: value = "-"
            default: value = member.value.serialized
            }
            output.out(style.bold(member.key.padding(toLength: width, withPad: " ", startingAt: 0)) + value)
        }
        if object.members.count > 1, inputs.count > 1 { output.out("") }
    }

    /// Lines of at most ``BoundedLines/maximumLineBytes`` (a longer one stops the run with
    /// exit 2 and its line number: memory stays flat); a line that is not a JSON string (invalid
    /// UTF-8 included) gets an error line and the run goes on.
    private static func runLines(_ output: Output) -> Int32 {
        let parser = JSONParser(maximumDepth: 1)
        // A stream of its own over descriptor 0 (the C global `stdin` is shared mutable state).
        guard let input = fdopen(STDIN_FILENO, "r") else {
            output.err("navpolicyd canonicalize: stdin cannot be read")
            return ExitCode.usage
        }
        do throws(ReplayError) {
            try BoundedLines.each(in: input, name: "stdin") { line, _ throws(ReplayError) in
                guard !line.isEmpty else { return }
                guard case .string(let input)? = try? parser.parse(line) else {
                    output.out((["error": .string("input line is not a JSON string")] as JSONObject).serializedJSON)
                    return
                }
                var object: JSONObject = ["input": .string(input)]
                do {
                    object.append("href", .string(try URLRecord.parse(input).href))
                } catch {
                    object.append("error", .string(String(describing: error)))
                }
                output.out(object.serializedJSON)
            }
        } catch {
            output.err("navpolicyd canonicalize: \(error.message)")
            return ExitCode.usage
        }
        return ExitCode.success
    }
}
