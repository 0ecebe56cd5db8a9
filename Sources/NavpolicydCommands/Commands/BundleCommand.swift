import BundleSigning
import Foundation
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient
import PolicyService

/// `navpolicyd bundle`: the policy bundle of a config, offline, as `GET /v1/policy/bundle`
/// serves it (docs/bundles.md), for apps that ship a first good bundle in their binary; with
/// `--public-key`, the public key apps verify with; `bundle verify FILE` and
/// `bundle inspect FILE` check and show a bundle as an app reads it.
package struct BundleCommand: ParsableCommand {
    static let sign = Option.text(
        "sign", "KEY", kind: .file,
        help: "sign with this Ed25519 private key (PEM PKCS#8, as openssl genpkey -algorithm ed25519 writes)")
    static let output = Option.text(
        "output", "PATH", kind: .file, help: "write the bundle to PATH and its signature to PATH.sig (default: stdout)")
    static let publicKey = Flag(
        "public-key", help: "print the raw public key of --sign KEY as base64 (what apps verify with), nothing else")
    /// Up to 9999-12-31T23:59:59Z: a time in milliseconds (≥ 10^12) is refused, as its default
    /// policyVersion would pin every app to this bundle, and `issuedAt + --lifetime` stays an
    /// exact JSON number (an outside attack wrote `expiresAt` as a float from 2^53 − 1).
    static let issuedAt = Option.integer(
        "issued-at", "UNIXSECONDS", in: 0...253_402_300_799, phrase: "Unix seconds up to 253402300799 (year 9999)",
        help: "the bundle's issuedAt (default: now); with --policy-version, reproduces a bundle byte for byte")
    static let lifetime = Option.integer(
        "lifetime", "SECONDS", in: BundleSettings.lifetimeRange, phrase: "60 to 31536000 seconds",
        help: "expiresAt = issuedAt + SECONDS (default: server.bundle.lifetimeSeconds, 604800)")
    static let policyVersion = Option.integer(
        "policy-version", "N", in: BundleSettings.policyVersionRange, phrase: "a whole number from 1",
        help: "the bundle's policyVersion (default: server.bundle.policyVersion, else the issuedAt seconds)")
    static let keyId = Option.text(
        "key-id", "ID", help: "the signed keyId (default: server.bundle.keyId, else derived from the public key)")
    static let format = OutputFormat.option(default: .text, text: "one field a line")
    static let compiled = Flag(
        "compiled", help: "carry the compiled image (navpolicyd compile) instead of the JSON chain; implied by an image --config")
    static let allowExpired = Flag(
        "allow-expired",
        help: "write the bundle even when it is already expired (--issued-at in the past), to test how an app refuses one")

    /// `bundle verify FILE` / `bundle inspect FILE`; no operand builds a bundle.
    package enum Action: String, CaseIterable, Sendable {
        case verify, inspect
    }

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
            The signed bytes carry issuedAt, expiresAt, policyVersion and, when signed, keyId
            (docs/bundles.md, "Freshness"); apps refuse expired and older bundles, so a
            bundle that would be written already expired is refused (exit 2) unless
            --allow-expired says it is meant to be (a fixture for an app's refusal path).

            bundle verify FILE [--bundle-key [ID:]KEY]... checks FILE (and FILE.sig) exactly as
            the app's client does: format, key id, signature, expiry, compile.
            bundle inspect FILE [--format json] shows its members without checking a signature.
            """,
        notes: """
            Exit status: 0 written, verified or shown; 2 unreadable or invalid config or bundle,
            a bundle an app would refuse, bad key, unwritable output or bad usage.
            """,
        options: [
            ConfigOptions.config.declaration, sign.declaration, output.declaration, publicKey.declaration,
            ConfigOptions.maxBytes.declaration, issuedAt.declaration, lifetime.declaration,
            policyVersion.declaration, keyId.declaration, format.declaration, compiled.declaration,
            allowExpired.declaration,
        ] + BundleInput.declarations.filter { $0.name != BundleInput.bundle.declaration.name },
        positional: PositionalDeclaration(
            name: "verify|inspect FILE", help: "check or show a bundle file instead of building one", arity: .zeroOrMore,
            missingMessage: "expected verify FILE or inspect FILE"),
        unexpectedArgumentHint: "use --config FILE")

    package var configPath: String?
    package var signingKeyPath: String?
    package var outputPath: String?
    package var printsPublicKey: Bool
    package var issuedAtSeconds: Int?
    package var lifetimeSeconds: Int?
    package var policyVersionValue: Int?
    package var keyIdValue: String?
    package var format: OutputFormat
    package var isCompiled = false
    package var allowsExpired = false
    /// `verify` or `inspect` with its file; nil builds a bundle.
    var action: (Action, BundleInput)?
    private var positionals: [String]
    private var keyOptionsGiven: Bool
    /// The config size cap (`--max-config-bytes`, its variable or 64 MiB), set by ``validate()``.
    package var maxConfigBytes = ConfigFile.defaultMaxBytes
    private var maxConfigBytesText: String?

    package init(_ arguments: ParsedArguments) {
        configPath = arguments[ConfigOptions.config]
        signingKeyPath = arguments[Self.sign]
        outputPath = arguments[Self.output]
        printsPublicKey = arguments[Self.publicKey]
        maxConfigBytesText = arguments[ConfigOptions.maxBytes]
        issuedAtSeconds = arguments[Self.issuedAt]
        lifetimeSeconds = arguments[Self.lifetime]
        policyVersionValue = arguments[Self.policyVersion]
        keyIdValue = arguments[Self.keyId]
        format = arguments[Self.format].flatMap(OutputFormat.init(rawValue:)) ?? .text
        isCompiled = arguments[Self.compiled]
        allowsExpired = arguments[Self.allowExpired]
        positionals = arguments.positionals
        keyOptionsGiven = BundleInput.keyOptionsGiven(arguments)
        if positionals.count == 2, let action = Action(rawValue: positionals[0]) {
            self.action = (
                action,
                BundleInput(
                    path: positionals[1], keys: arguments.all(BundleInput.key), signaturePath: arguments[BundleInput.signature])
            )
        }
    }

    package mutating func validate() throws(CommandError) {
        if !positionals.isEmpty {
            try validateCheckingAction()
            return
        }
        if keyOptionsGiven { throw .usage("--bundle-key and --bundle-signature are for 'bundle verify FILE'") }
        if let keyIdValue, let problem = BundleKeyID.problem(keyIdValue) { throw .invalidValue("--key-id: \(problem)") }
        if keyIdValue != nil, signingKeyPath == nil { throw .usage("--key-id names the signing key; add --sign KEY") }
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

    /// `verify FILE` or `inspect FILE`, and none of the options that build a bundle.
    private mutating func validateCheckingAction() throws(CommandError) {
        guard let action else {
            if let first = positionals.first, Action(rawValue: first) == nil {
                throw .usage("unknown action \(first); expected verify FILE or inspect FILE")
            }
            throw .usage("expected exactly one FILE after \(positionals.first ?? "verify")")
        }
        let building = [
            configPath != nil, signingKeyPath != nil, outputPath != nil, printsPublicKey, issuedAtSeconds != nil,
            lifetimeSeconds != nil, policyVersionValue != nil, keyIdValue != nil, allowsExpired,
        ]
        if building.contains(true) {
            throw .usage("'bundle \(action.0.rawValue) FILE' reads a bundle; the options that build one do not apply")
        }
        if action.0 == .inspect, keyOptionsGiven {
            throw .usage("'bundle inspect' checks no signature; use 'bundle verify FILE --bundle-key …'")
        }
        if action.0 == .verify, format == .json {
            throw .usage("--format is for 'bundle inspect'")
        }
        _ = try action.1.trust()
    }

    package func run(_ output: Output) -> Int32 {
        if let (action, input) = action {
            switch action {
            case .verify: return BundleCheck.verify(input, output: output)
            case .inspect: return BundleCheck.inspect(input, format: format, output: output)
            }
        }
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
        let source: BundleSource
        do throws(ConfigLoader.LoadError) {
            source = try BundleSource.read(path, maxBytes: maxConfigBytes, compiled: isCompiled)
        } catch {
            ConfigLoader.report(error, to: output)
            return ExitCode.usage
        }
        let bundleStamp = stamp(source.settings, signingKey)
        if !allowsExpired, let refusal = Self.expiredRefusal(bundleStamp, now: Int(Date().timeIntervalSince1970)) {
            output.err("navpolicyd bundle: \(refusal)")
            return ExitCode.usage
        }
        // A compiled bundle's revision is its image's own hash, as `serve` reports for that image.
        let built =
            source.image.map {
                PolicyBundle.make(
                    compiledImage: $0, revision: PolicyBundle.revision(of: $0), stamp: bundleStamp, signingKey: signingKey)
            }
            ?? PolicyBundle.make(
                configBytes: source.bytes, revision: PolicyBundle.revision(of: source.bytes), stamp: bundleStamp,
                signingKey: signingKey)
        guard let bundle = built else {
            output.err("navpolicyd bundle: config \(path): the bundle could not be built")
            return ExitCode.usage
        }
        guard let outputPath else {
            output.outBytes(bundle.bytes)
            if let signature = bundle.signatureBase64 { output.err(signature) }
            return ExitCode.success
        }
        do {
            // Written from the bundle's own buffer: a `Data` copy was another 25 MiB for 1M hosts.
            try bundle.bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else {
                    return try Data().write(to: URL(fileURLWithPath: outputPath), options: .atomic)
                }
                try Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .none)
                    .write(to: URL(fileURLWithPath: outputPath), options: .atomic)
            }
            if let signature = bundle.signatureBase64 {
                let signatureFile = URL(fileURLWithPath: outputPath + "." + BundleFormat.signatureFileExtension)
                try Data((signature + "\n").utf8).write(to: signatureFile, options: .atomic)
            }
        } catch {
            output.err("navpolicyd bundle: --output \(outputPath): cannot be written (\(error.localizedDescription))")
            return ExitCode.usage
        }
        return ExitCode.success
    }

    /// Why a bundle with `stamp` must not be written at `now`: every app would refuse it as
    /// `expired` the moment it got it. nil when it is still valid. The times are written as
    /// `bundle verify`'s OK line writes them.
    static func expiredRefusal(_ stamp: PolicyBundle.Stamp, now: Int) -> String? {
        guard stamp.isExpired(atUnixSeconds: now) else { return nil }
        return "the bundle would be written already expired: expiresAt \(BundleCheck.timestamp(stamp.expiresAt))"
            + " (issuedAt \(BundleCheck.timestamp(stamp.issuedAt)) + \(stamp.expiresAt - stamp.issuedAt) s) is not after"
            + " now, \(BundleCheck.timestamp(now)), so every app refuses it (expired); give a later --issued-at or a"
            + " longer --lifetime, or --allow-expired to write it anyway (a fixture for an app's refusal path)"
    }

    /// The stamp the flags ask for, over the config's `server.bundle` settings.
    private func stamp(_ configured: BundleSettings, _ signingKey: Ed25519PrivateKey?) -> PolicyBundle.Stamp {
        var settings = configured
        if let lifetimeSeconds { settings.lifetimeSeconds = lifetimeSeconds }
        if let policyVersionValue { settings.policyVersion = policyVersionValue }
        if let keyIdValue { settings.keyId = keyIdValue }
        return .make(
            issuedAt: issuedAtSeconds ?? Int(Date().timeIntervalSince1970), settings: settings, signingKey: signingKey,
            previousVersion: nil)
    }
}
