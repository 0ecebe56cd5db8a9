import BundleSigning
import Foundation
import NavigationPolicy
import PolicyService

/// `navpolicyd bundle`: the policy bundle of a config, offline, byte for byte what
/// `GET /v1/policy/bundle` serves for it (docs/bundles.md), for apps that ship a first good
/// bundle in their binary; or, with `--public-key`, the public key apps verify with.
package struct BundleCommand: ParsableCommand {
    static let config = Option.text("config", "FILE", kind: .file, help: SharedHelp.config)
    static let sign = Option.text(
        "sign", "KEY", kind: .file,
        help: "sign with this Ed25519 private key (PEM PKCS#8, as openssl genpkey -algorithm ed25519 writes)")
    static let output = Option.text(
        "output", "PATH", kind: .file, help: "write the bundle to PATH and its signature to PATH.sig (default: stdout)")
    static let publicKey = Flag(
        "public-key", help: "print the raw public key of --sign KEY as base64 (what apps verify with), nothing else")

    package static let declaration = CommandDeclaration(
        name: "bundle",
        summary: "Write the policy bundle apps decide with, optionally signed",
        discussion: """
            Writes the bundle of the policy file: the same bytes GET /v1/policy/bundle serves
            for it (the handler chain and the default decision, without the server, intake
            and proxy sections), to stdout or --output PATH. The config's own
            server.bundle.signingKeyFile is not read: sign with --sign KEY.
            With --sign, the base64 Ed25519 signature over the bytes goes to PATH.sig, or
            without --output to stderr as its only output, so
              navpolicyd bundle --config c.json --sign k.pem > b.json 2> b.json.sig
            keeps the two apart. --public-key --sign KEY prints the base64 raw public key.
            """,
        notes: "Exit status: 0 written; 2 unreadable or invalid config, bad key, unwritable output or bad usage.",
        options: [
            config.declaration, sign.declaration, output.declaration, publicKey.declaration,
            ConfigLoader.maxBytesOption.declaration,
        ],
        unexpectedArgumentHint: "use --config FILE")

    package var configPath: String?
    package var signingKeyPath: String?
    package var outputPath: String?
    package var printsPublicKey: Bool
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[Self.config]
        signingKeyPath = arguments[Self.sign]
        outputPath = arguments[Self.output]
        printsPublicKey = arguments[Self.publicKey]
        maxConfigBytesText = arguments[ConfigLoader.maxBytesOption]
    }

    package mutating func validate() throws(CommandError) {
        if printsPublicKey {
            guard signingKeyPath != nil else {
                throw .usage("--public-key needs --sign KEY: the key to print the public half of")
            }
            // The key is all it prints: a config or output path would be silently ignored.
            if configPath != nil || outputPath != nil {
                throw .usage("--public-key prints only the public key; drop --config and --output")
            }
        }
        if let outputPath, outputPath.isEmpty { throw .invalidValue("--output: empty path") }
        maxConfigBytes = try ConfigLoader.maxBytes(flag: maxConfigBytesText)
    }

    package func run(_ output: Output) -> Int32 {
        var signingKey: Ed25519PrivateKey?
        if let signingKeyPath {
            do {
                signingKey = try Ed25519PrivateKey(pemFile: signingKeyPath)
            } catch {
                output.err("navpolicyd bundle: --sign \(signingKeyPath): \(error.reason)")
                return ExitCode.usage
            }
        }
        if printsPublicKey, let signingKey {
            output.out(signingKey.publicKeyBase64)
            return ExitCode.success
        }
        let path = ConfigLoader.resolvePath(flag: configPath)
        let bytes: [UInt8]
        do throws(ConfigLoader.LoadError) {
            bytes = try ConfigLoader.read(path, maxBytes: maxConfigBytes)
            // Validated as the daemon validates it, so an invalid policy never becomes a bundle.
            do throws(ConfigError) {
                _ = try ServerSettings.compiler.compile(bytes)
            } catch {
                throw .invalid(path: path, error)
            }
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        guard
            let bundle = PolicyBundle.make(
                configBytes: bytes, revision: PolicyBundle.revision(of: bytes), signingKey: signingKey)
        else {
            output.err("navpolicyd bundle: config \(path): the bundle could not be built")
            return ExitCode.usage
        }
        guard let outputPath else {
            output.outBytes(bundle.bytes)
            if let signature = bundle.signatureBase64 { output.err(signature) }
            return ExitCode.success
        }
        do {
            try Data(bundle.bytes).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
            if let signature = bundle.signatureBase64 {
                try Data((signature + "\n").utf8).write(to: URL(fileURLWithPath: outputPath + ".sig"), options: .atomic)
            }
        } catch {
            output.err("navpolicyd bundle: --output \(outputPath): cannot be written (\(error.localizedDescription))")
            return ExitCode.usage
        }
        return ExitCode.success
    }
}
