import Foundation
import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import PolicyService

/// `navpolicyd validate`: the chain in order and lint warnings, or every config error with its JSON pointer.
package struct ValidateCommand: ParsableCommand {
    static let config = Option.text("config", "FILE", kind: .file, help: SharedHelp.config)
    static let strict = Flag("strict", help: "warnings make the exit status 1")
    static let format = OutputFormat.option(default: .text, text: "coloured on a terminal")

    package static let declaration = CommandDeclaration(
        name: "validate",
        summary: "Check a policy file: errors, warnings, the handler chain and effective settings",
        discussion: """
            Prints the handler chain in order (name, type, match conditions in canonical form),
            warnings (unreachable handlers, duplicate entries, an empty chain, payment-redirect
            without hosts, a location the policy itself cancels) and the effective server,
            intake and proxy settings, defaults included.
            When the file is invalid, prints every error with its JSON pointer, e.g.
              /handlers/2/match/hosts/0: "*.": empty host pattern
            """,
        notes: "Exit status: 0 valid; 1 invalid config, or warnings with --strict; 2 unreadable file or bad usage.",
        options: [config.declaration, ConfigLoader.maxBytesOption.declaration, strict.declaration, format.declaration],
        unexpectedArgumentHint: "use --config FILE")

    package var configPath: String?
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var isStrict: Bool
    package var format: OutputFormat

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[Self.config]
        maxConfigBytesText = arguments[ConfigLoader.maxBytesOption]
        isStrict = arguments[Self.strict]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .text
    }

    /// The size cap's value (flag or environment) is checked before anything runs.
    package mutating func validate() throws(CommandError) {
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
    }

    package func run(_ output: Output) -> Int32 {
        let json = format == .json
        let path = ConfigLoader.resolvePath(flag: configPath)
        let policy: CompiledPolicy
        let image: PolicyImage.Loaded?
        do {
            (policy, image) = try ConfigLoader.loadDescribed(path, maxBytes: maxConfigBytes)
        } catch {
            if json, case .invalid(_, let configError) = error {
                let issues: [JSONValue] = configError.issues.map {
                    .object(["pointer": .string($0.pointer.description), "message": .string($0.message)])
                }
                let report: JSONObject = ["valid": .bool(false), "errors": .array(issues)]
                output.out(report.serializedJSON)
                return ExitCode.failure
            }
            ConfigLoader.report(error, to: output)
            if case .invalid = error { return ExitCode.failure }
            return ExitCode.usage
        }
        let warnings = PolicyLint.warnings(policy)
        let status = warnings.isEmpty || !isStrict ? ExitCode.success : ExitCode.failure
        if json {
            var report = Self.jsonReport(policy, warnings: warnings)
            if let image { report.append("compiledImage", .object(Self.imageFacts(image))) }
            output.out(report.serializedJSON)
            return status
        }
        let style = TerminalStyle(enabled: output.usesColour)
        output.out("\(path): " + style.green("valid"))
        if let image {
            output.out(
                "compiled image: format version \(image.header.formatVersion), \(image.header.totalLength) bytes, "
                    + "source revision \(image.header.sourceRevision)")
            output.out("  " + Self.imageLintNote)
        }
        output.out("defaultDecision: \(policy.defaultVerdict.rawValue)")
        output.out("handlers (\(policy.links.count), first match wins):")
        let nameWidth = min(24, policy.links.map(\.name.count).max() ?? 0)
        let typeWidth = policy.links.map(\.type.count).max() ?? 0
        for (index, link) in policy.links.enumerated() {
            let name = Self.padded(link.name, toLength: max(nameWidth, link.name.count))
            let type = Self.padded(link.type, toLength: typeWidth)
            output.out("  \(index + 1). \(name)  \(type)  \(link.matcher.summary)\(link.isShadow ? "  (shadow)" : "")")
        }
        output.out("warnings (\(warnings.count)):" + (warnings.isEmpty ? " none" : ""))
        for warning in warnings { output.out("  " + style.yellow("warning") + " \(warning)") }
        output.out("effective settings (defaults included):")
        for section in EffectiveSettings.sections(policy) {
            output.out("  \(section.name): " + section.fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        }
        return status
    }

    /// Foundation's `padding(toLength:withPad:startingAt:)` with `" "`, which counts UTF-16
    /// units: the same text, without its ~10,000 instructions per call (two per handler,
    /// 2G of a 100k-handler `validate`). Text longer than `length` (UTF-16) keeps Foundation's
    /// truncation so the output stays byte-identical.
    static func padded(_ text: String, toLength length: Int) -> String {
        let units = text.utf16.count
        guard units <= length else { return text.padding(toLength: length, withPad: " ", startingAt: 0) }
        return units == length ? text : text + String(repeating: " ", count: length - units)
    }

    /// What lint cannot see in an image: entries of its tables are not compared with others.
    static let imageLintNote =
        "lint on an image skips the hosts and pathPrefixes held in its tables (duplicates, overlaps); validate the JSON source for those"

    static func imageFacts(_ image: PolicyImage.Loaded) -> JSONObject {
        [
            "formatVersion": .number(Double(image.header.formatVersion)),
            "bytes": .number(Double(image.header.totalLength)),
            "sourceRevision": .string(image.header.sourceRevision),
            "tableHandlers": .number(Double(image.tableHandlers)), "lint": .string(imageLintNote),
        ]
    }

    static func jsonReport(_ policy: CompiledPolicy, warnings: [LintWarning]) -> JSONObject {
        let handlers: [JSONValue] = policy.links.map {
            .object([
                "name": .string($0.name), "type": .string($0.type), "match": .string($0.matcher.summary),
                "mode": .string($0.isShadow ? "shadow" : "enforce"),
            ])
        }
        let warningValues: [JSONValue] = warnings.map {
            .object(["kind": .string($0.kind), "pointer": .string($0.pointer.description), "message": .string($0.message)])
        }
        var settings = JSONObject()
        for section in EffectiveSettings.sections(policy) {
            settings.append(section.name, .object(JSONObject(section.fields.map { JSONMember($0.0, .string($0.1)) })))
        }
        return [
            "valid": .bool(true), "defaultDecision": .string(policy.defaultVerdict.rawValue),
            "handlers": .array(handlers), "warnings": .array(warningValues), "settings": .object(settings),
        ]
    }
}
