import BundleSigning
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import NavigationPolicyClientSodium

/// `--bundle FILE` and its keys: a signed policy bundle read and checked exactly as the app's
/// `NavigationPolicyClient` checks it (format, key id, signature, expiry, compile), so `check`,
/// `test` and `bundle verify` test what the app ships (docs/bundles.md).
struct BundleInput {
    static let bundle = Option.text(
        "bundle", "FILE", kind: .file,
        help: "decide with this policy bundle (as navpolicyd bundle wrote it) instead of a config")
    static let key = Option<String>(
        declaration: OptionDeclaration(
            name: "bundle-key", placeholder: "[ID:]KEY", kind: .text,
            help: "trust this base64 Ed25519 public key, under key id ID (repeatable, as the app's trustedKeys)",
            isRepeatable: true),
        extract: { if case .text(let text) = $0 { text } else { nil } })
    static let signature = Option.text(
        "bundle-signature", "FILE", kind: .file, help: "the bundle's base64 signature (default: the bundle's FILE.sig)")

    /// The options a command that reads a bundle declares.
    static let declarations = [bundle.declaration, key.declaration, signature.declaration]

    var path: String
    var keys: [String]
    var signaturePath: String?

    /// The bundle options given, or nil when `--bundle` is absent (and then no key or signature
    /// may be given either: they would be ignored).
    static func parse(_ arguments: ParsedArguments) -> BundleInput? {
        guard let path = arguments[bundle] else { return nil }
        return BundleInput(path: path, keys: arguments.all(key), signaturePath: arguments[signature])
    }

    /// Whether `--bundle-key` or `--bundle-signature` is on the command line.
    static func keyOptionsGiven(_ arguments: ParsedArguments) -> Bool {
        arguments.isGiven(key.declaration.name) || arguments.isGiven(signature.declaration.name)
    }

    /// Usage errors: keys or a signature without `--bundle`, both `--bundle` and `--config`,
    /// a key that is not one.
    static func validate(_ input: BundleInput?, keyOptionsGiven: Bool, configGiven: Bool) throws(CommandError) {
        guard let input else {
            if keyOptionsGiven { throw .usage("--bundle-key and --bundle-signature go with --bundle FILE") }
            return
        }
        if configGiven { throw .usage("--bundle FILE and --config FILE are two policies; give one") }
        _ = try input.trust()
    }

    /// The keys as a client's trust: `ID:KEY` entries become trusted keys by id, a bare `KEY`
    /// the single verifier (the form from before key ids); mixing both is refused.
    func trust() throws(CommandError) -> BundleTrust {
        var trust = BundleTrust()
        for entry in keys {
            let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let id = parts.count == 2 ? String(parts[0]) : nil
            let text = String(parts.last ?? "")
            let verifier: SodiumBundleVerifier
            do {
                verifier = try SodiumBundleVerifier(publicKeyBase64: text)
            } catch {
                throw .invalidValue("--bundle-key \(entry): \(error.reason)")
            }
            if let id {
                if let problem = BundleKeyID.problem(id) { throw .invalidValue("--bundle-key \(entry): \(problem)") }
                guard trust.trustedKeys[id] == nil else { throw .invalidValue("--bundle-key: key id \(id) given twice") }
                trust.trustedKeys[id] = verifier
            } else {
                guard trust.verifier == nil else {
                    throw .usage("--bundle-key: one key without an id at most; name several as ID:KEY")
                }
                trust.verifier = verifier
            }
        }
        if trust.verifier != nil, !trust.trustedKeys.isEmpty {
            throw .usage("--bundle-key: give every key as ID:KEY, or one key without an id")
        }
        return trust
    }

    /// What went wrong loading the bundle: a message for stderr, exit 2. The message quotes
    /// the bundle (a key id, a config error naming its keys), so its control characters are
    /// escaped (``TerminalText``) where it is made, for every command that prints it.
    struct Failure: Error {
        var message: String

        init(message: String) {
            self.message = TerminalText.escaped(message)
        }
    }

    /// The bundle's bytes and signature as read from disk (no checks).
    func read() throws(Failure) -> (bytes: [UInt8], signature: [UInt8]?) {
        let bytes: [UInt8]
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            // The larger cap of a compiled bundle; a JSON bundle is held to its own in VerifiedBundle.
            guard data.count <= VerifiedBundle.maximumCompiledBytes else {
                throw Failure(
                    message: "\(path): \(data.count) bytes; a bundle is at most \(VerifiedBundle.maximumCompiledBytes)")
            }
            bytes = [UInt8](data)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "\(path): cannot be read (\(error.localizedDescription))")
        }
        return (bytes, try readSignature())
    }

    /// The signature from `--bundle-signature`, else `FILE.sig`; nil when unsigned.
    private func readSignature() throws(Failure) -> [UInt8]? {
        let signatureFile = signaturePath ?? path + "." + BundleFormat.signatureFileExtension
        // Only a FILE.sig that is not there at all means the bundle was written unsigned; one that
        // is there but is no regular file (a FIFO, a directory, a link to /dev/zero) cannot be
        // read, which is not the same thing (attack round 9, F8).
        var status = stat()
        if signaturePath == nil && lstat(signatureFile, &status) != 0 && errno == ENOENT { return nil }
        guard stat(signatureFile, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4096,
            let text = FileManager.default.contents(atPath: signatureFile)
        else {
            let option = signaturePath != nil ? "--bundle-signature " : ""
            throw Failure(message: "\(option)\(signatureFile): cannot be read (not a regular file of a signature's size)")
        }
        guard let decoded = SignatureText.decode(bytes: [UInt8](text)) else {
            throw Failure(message: "\(signatureFile): not a base64 signature")
        }
        return decoded
    }

    /// Reads and checks the bundle as the app would, at `now`.
    func load(now: Date = Date()) throws(Failure) -> VerifiedBundle {
        let trust: BundleTrust
        do {
            trust = try self.trust()
        } catch {
            throw Failure(message: error.message)
        }
        // Loaded by the client's own code for a shipped bundle file (mapped; a compiled bundle
        // checked and used in place), so `check --bundle` pays exactly what the app pays.
        let signature = try readSignature()
        let shipped = NavigationPolicyClient.ShippedBundle(contentsOf: URL(fileURLWithPath: path), signature: signature)
        do {
            return try shipped.verified(trust: trust, now: now)
        } catch {
            throw Failure(message: "\(path): refused, as an app would refuse it: \(error)")
        }
    }

    /// The policy a `check` or `test` run decides with: the bundle when `--bundle` is given,
    /// else the config; nil after reporting why neither can be used.
    static func policy(
        bundle input: BundleInput?, configPath: String?, maxConfigBytes: Int, command: String, output: Output,
        use: ConfigLoader.Use = .deciding
    ) -> CompiledPolicy? {
        guard let input else {
            do {
                return try ConfigLoader.load(
                    ConfigLoader.resolvePath(flag: configPath), maxBytes: maxConfigBytes, for: use)
            } catch {
                ConfigLoader.report(error, to: output)
                return nil
            }
        }
        do {
            let policy = try input.load().policy
            input.noteUncheckedSignature(command, to: output)
            return policy
        } catch {
            output.err("navpolicyd \(command): \(error.message)")
            return nil
        }
    }

    /// `command: --bundle …: signature not checked` when no key is given: said, never silent.
    func noteUncheckedSignature(_ command: String, to output: Output) {
        if keys.isEmpty {
            output.err(
                "navpolicyd \(command): note: --bundle \(TerminalText.escaped(path)): signature not checked (no --bundle-key)")
        }
    }
}
