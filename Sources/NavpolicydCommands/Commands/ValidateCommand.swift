import Foundation
import JSONSupport
import NavigationPolicy
import PolicyAuthoring
import PolicyService

/// `navpolicyd validate`: the chain in order and lint warnings, or every config error with its JSON pointer.
package struct ValidateCommand: ParsableCommand {
    static let strict = Flag("strict", help: "warnings make the exit status 1")
    static let source = Option.text(
        "source", "FILE", kind: .file,
        help: "the JSON an image --config was compiled from (checked byte for byte)")
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
        notes: """
            Exit status: 0 valid; 1 invalid config, warnings with --strict, or an image that is
            not what compile makes of --source; 2 unreadable file or bad usage.
            """,
        options: [
            ConfigOptions.config.declaration, ConfigOptions.maxBytes.declaration, strict.declaration, source.declaration,
            format.declaration,
        ],
        unexpectedArgumentHint: "use --config FILE")

    package var configPath: String?
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?
    package var isStrict: Bool
    package var format: OutputFormat
    /// `--source`: the JSON an image `--config` claims to be compiled from.
    package var sourcePath: String?

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        sourcePath = arguments[Self.source]
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
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
        let source: ImageSource
        switch checkSource(of: image, at: path) {
        case .success(let checked): source = checked
        case .failure(let failure):
            output.err("navpolicyd validate: \(failure.message)")
            return failure.isUsage ? ExitCode.usage : ExitCode.failure
        }
        let warnings = PolicyLint.warnings(policy)
        let status = warnings.isEmpty || !isStrict ? ExitCode.success : ExitCode.failure
        if json {
            var report = Self.jsonReport(policy, warnings: warnings)
            if let image { report.append("compiledImage", .object(Self.imageFacts(image, source: source))) }
            output.out(report.serializedJSON)
            return status
        }
        let style = TerminalStyle(enabled: output.usesColour)
        output.out("\(path): " + style.green("valid"))
        if let image {
            output.out(
                "compiled image: format version \(image.header.formatVersion), \(image.header.totalLength) bytes, "
                    + "source revision \(image.header.sourceRevision) (\(source.note))")
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

    static func imageFacts(_ image: PolicyImage.Loaded, source: ImageSource) -> JSONObject {
        [
            "formatVersion": .number(Double(image.header.formatVersion)),
            "bytes": .number(Double(image.header.totalLength)),
            "sourceRevision": .string(image.header.sourceRevision),
            "sourceRevisionVerified": .bool(source.verifiedAgainst != nil),
            "tableHandlers": .number(Double(image.tableHandlers)), "lint": .string(imageLintNote),
        ]
    }

    /// What is known of an image's source revision: a claim of its header, which anyone who
    /// edits the image and recomputes its checksum can keep (issue 38, item 7), unless
    /// `--source` names the JSON and the image is byte for byte what compile makes of it.
    struct ImageSource {
        /// The `--source` file the image was checked against; nil when unverified.
        var verifiedAgainst: String?

        /// How the text output qualifies the revision.
        var note: String {
            verifiedAgainst.map { "verified: the image is what compile makes of \($0)" }
                ?? "unverified: the image's own claim; --source FILE checks it"
        }
    }

    /// Why `--source` could not vouch for the image: exit 1 for a mismatch, 2 for usage.
    struct SourceFailure: Error {
        var message: String
        var isUsage = false
    }

    /// Checks `--source` against the image at `path`: its SHA-256 must be the revision the
    /// header names, and compiling it must give the image's very bytes (the same build
    /// compiles deterministically), so an image edited after compiling is caught even when it
    /// keeps the source's revision.
    private func checkSource(of image: PolicyImage.Loaded?, at path: String) -> Result<ImageSource, SourceFailure> {
        guard let sourcePath else { return .success(ImageSource()) }
        guard let image else {
            return .failure(SourceFailure(message: "--source is for a compiled image --config; \(path) is JSON", isUsage: true))
        }
        let source: [UInt8]
        let imageBytes: [UInt8]
        do {
            source = try ConfigLoader.read(sourcePath, maxBytes: maxConfigBytes)
            imageBytes = try ConfigLoader.read(path, maxBytes: maxConfigBytes)
        } catch {
            guard case .unreadable(let unreadable, let reason) = error else {
                return .failure(SourceFailure(message: "--source \(sourcePath): cannot be read", isUsage: true))
            }
            return .failure(SourceFailure(message: "\(unreadable): \(reason.reason)", isUsage: true))
        }
        let revision = PolicyBundle.revision(of: source)
        guard revision == image.header.sourceRevision else {
            return .failure(
                SourceFailure(
                    message:
                        "\(path) names source revision \(image.header.sourceRevision), but --source \(sourcePath) is \(revision)"
                ))
        }
        let compiled: [UInt8]
        do {
            compiled = try PolicyImageFile.compile(config: source)
        } catch {
            return .failure(SourceFailure(message: "--source \(sourcePath) is invalid: \(error)"))
        }
        guard compiled == imageBytes else {
            return .failure(
                SourceFailure(
                    message:
                        "\(path) names \(sourcePath)'s revision but is not what compile makes of it: edited after compiling, or compiled by another build"
                ))
        }
        return .success(ImageSource(verifiedAgainst: sourcePath))
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
