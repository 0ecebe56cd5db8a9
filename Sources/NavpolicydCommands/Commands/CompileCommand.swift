import Foundation
import NavigationPolicy
import PolicyService

/// `navpolicyd compile --config X --output Y`: the policy as a compiled image (docs/compiled-policy.md)
/// that every `--config`, `serve` and the in-app client use in place, without parsing it.
package struct CompileCommand: ParsableCommand {
    static let output = Option.text(
        "output", "PATH", kind: .file, help: "write the image to PATH (a temporary file, then renamed)", required: true)

    package static let declaration = CommandDeclaration(
        name: "compile",
        summary: "Compile a policy file into an image that loads in place (memory-mapped)",
        discussion: """
            Checks the config as validate does, then writes it as a compiled policy image:
            large hosts and pathPrefixes lists become sorted tables read in place, every
            other form stays its JSON source and is compiled at load. The image is written
            to a temporary file and renamed over PATH. Any command's --config (and serve,
            and the app's client through a compiled bundle) accepts the image, told by its
            header. Prints the image's revision (its SHA-256, what serve reports) and the
            source config's revision (recorded in the header).
            """,
        notes: "Exit status: 0 written; 2 unreadable or invalid config, unwritable output or bad usage.",
        options: [ConfigOptions.config.declaration, output.declaration, ConfigOptions.maxBytes.declaration],
        unexpectedArgumentHint: "use --config FILE --output PATH")

    package var configPath: String?
    package var outputPath = ""
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        outputPath = arguments[Self.output] ?? ""
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
    }

    package mutating func validate() throws(CommandError) {
        guard !outputPath.isEmpty else { throw .usage("navpolicyd compile: --output PATH is required") }
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
    }

    package func run(_ output: Output) -> Int32 {
        let path = ConfigLoader.resolvePath(flag: configPath)
        let image: [UInt8]
        do throws(ConfigLoader.LoadError) {
            let bytes = try ConfigLoader.read(path, maxBytes: maxConfigBytes)
            if PolicyImage.hasMagic(bytes) {
                output.err("navpolicyd compile: config \(path) is already a compiled image; compile its JSON source")
                return ExitCode.usage
            }
            do throws(ConfigError) {
                image = try PolicyImageFile.compile(config: bytes)
            } catch {
                throw .invalid(path: path, error)
            }
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        // Loaded back before it is written: an image this build cannot read is never left behind.
        let loaded: PolicyImage.Loaded
        do {
            loaded = try PolicyImageFile.load(PolicyImageBytes(copying: image))
        } catch {
            output.err("navpolicyd compile: the image does not load back: \(error.reason)")
            return ExitCode.usage
        }
        do {
            // `.atomic`: a temporary file in the same directory, renamed over PATH.
            try Data(image).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
        } catch {
            output.err("navpolicyd compile: --output \(outputPath): cannot be written (\(error.localizedDescription))")
            return ExitCode.usage
        }
        output.out("\(outputPath): compiled policy image, format version \(loaded.header.formatVersion), \(image.count) bytes")
        output.out("revision: \(PolicyBundle.revision(of: image))")
        output.out("source revision: \(loaded.header.sourceRevision) (\(path))")
        output.out("handlers: \(loaded.policy.links.count), \(loaded.tableHandlers) with tables read in place")
        return ExitCode.success
    }
}
