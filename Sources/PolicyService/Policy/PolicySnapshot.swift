public import BundleSigning
public import Foundation
import JSONSupport
public import NavigationPolicy

/// One active policy: the compiled chain plus what identifies it.
///
/// Immutable, so a request takes one reference at its start and decides entirely on it,
/// whatever reloads happen meanwhile.
public final class PolicySnapshot: Sendable {
    public let policy: CompiledPolicy
    /// `sha256:` hex of the config bytes it was built from.
    public let revision: String
    public let loadedAt: Date
    public let settings: ServerSettings
    /// The app bundle of this policy (`GET /v1/policy/bundle`), built and signed with it.
    public let bundle: PolicyBundle
    /// The key that signed ``bundle``, kept to re-issue it before it expires.
    let bundleSigningKey: Ed25519PrivateKey?
    /// Whether ``bundle`` is a pulled bundle relayed as received (`policySource`): it is never
    /// issued again here (no key signs it here); its publisher re-issues it.
    let relaysBundle: Bool
    /// `,"policyRevision":"…"}` as JSON bytes, written once here: every decision response
    /// ends with it (and the object's closing brace), and copying it beats escaping the same
    /// 71 characters per request.
    let closingRevisionMemberJSON: [UInt8]
    /// `,"revision":"…"}`: how every decision-log line of this revision ends, serialized once.
    let logLineEndJSON: [UInt8]
    /// `decisionLog.redactQueryParameters`, compiled once: the decision log's lines for
    /// decisions taken on this snapshot are redacted with it.
    let logRedaction: QueryRedaction
    /// `decisionLog.maxBytes`, read once here: the log's writer asks for the budget before
    /// every batch it writes, and decoding the section each time cost ~7,000 instructions.
    let logMaxBytes: Int

    public init(
        policy: CompiledPolicy, revision: String, loadedAt: Date, settings: ServerSettings, bundle: PolicyBundle,
        bundleSigningKey: Ed25519PrivateKey? = nil, relaysBundle: Bool = false
    ) {
        self.bundleSigningKey = bundleSigningKey
        self.relaysBundle = relaysBundle
        self.policy = policy
        self.revision = revision
        var member = JSONWriter(reservingCapacity: 96)
        member.writeRaw(#","policyRevision":"#)
        member.writeString(revision)
        member.writeRaw("}")
        self.closingRevisionMemberJSON = member.bytes
        self.logLineEndJSON = DecisionRecorder.logLineEnd(revision: revision)
        let logSettings = DecisionLogSettings.from(policy)
        self.logRedaction = QueryRedaction(names: logSettings.redactQueryParameters)
        self.logMaxBytes = logSettings.maxBytes
        self.loadedAt = loadedAt
        self.settings = settings
        self.bundle = bundle
    }

    /// Compiles config bytes into a snapshot, or returns every config issue.
    ///
    /// The bundle signing key (`server.bundle.signingKeyFile`) is read here, so that start-up
    /// and every reload read it: a key that is missing or invalid fails the build like any
    /// config error (reported at the setting's pointer), and a reload then keeps the old
    /// policy and the old key's signatures.
    ///
    /// `previous` is the snapshot being served (nil at start): the bundle's `policyVersion`
    /// must rise above its own (docs/bundles.md, "Freshness"), so a configured version that
    /// does not is refused at `/server/bundle/policyVersion`.
    public static func build(
        from bytes: [UInt8], at date: Date = Date(), previous: PolicySnapshot? = nil
    ) -> Result<PolicySnapshot, ConfigError> {
        let policy: CompiledPolicy
        let isImage = PolicyImage.hasMagic(bytes)
        do {
            if isImage {
                // An image's revision is its own SHA-256 (below), like a JSON file's.
                policy = try PolicyImageFile.load(PolicyImageBytes(copying: bytes)).policy
            } else {
                policy = try ServerSettings.decidingCompiler.compile(bytes)
            }
        } catch let error as PolicyImageError {
            return .failure(ConfigError(issues: [ConfigIssue(pointer: .root, message: "compiled policy image: \(error.reason)")]))
        } catch let error as ConfigError {
            return .failure(error)
        } catch {
            return .failure(ConfigError(issues: [ConfigIssue(pointer: .root, message: "\(error)")]))
        }
        let settings = ServerSettings.from(policy)
        let revision = PolicyBundle.revision(of: bytes)
        var signingKey: Ed25519PrivateKey?
        if let path = settings.bundle.signingKeyFile {
            do {
                signingKey = try Ed25519PrivateKey(pemFile: path)
            } catch {
                let pointer = JSONPointer.root.appending("server").appending("bundle").appending("signingKeyFile")
                return .failure(ConfigError(issues: [ConfigIssue(pointer: pointer, message: "\(path): \(error.reason)")]))
            }
        }
        let previousVersion = previous?.bundle.stamp.policyVersion
        let stamp = PolicyBundle.Stamp.make(
            issuedAt: Int(date.timeIntervalSince1970), settings: settings.bundle, signingKey: signingKey,
            previousVersion: previousVersion)
        if let previousVersion, stamp.policyVersion <= previousVersion {
            // Clients refuse a version at or below the one they hold: serving it would strand them
            // on the old policy, so the reload fails loudly instead.
            let pointer = JSONPointer.root.appending("server").appending("bundle").appending("policyVersion")
            return .failure(
                ConfigError(issues: [
                    ConfigIssue(
                        pointer: pointer,
                        message:
                            "\(stamp.policyVersion) is not above the version being served (\(previousVersion)); apps would refuse the new bundle"
                    )
                ]))
        }
        let built =
            isImage
            ? PolicyBundle.make(compiledImage: bytes, revision: revision, stamp: stamp, signingKey: signingKey)
            : PolicyBundle.make(configBytes: bytes, revision: revision, stamp: stamp, signingKey: signingKey)
        guard let bundle = built else {
            // Unreachable for bytes that compiled; refused rather than served empty.
            return .failure(ConfigError(issues: [ConfigIssue(pointer: .root, message: "the policy bundle could not be built")]))
        }
        return .success(
            PolicySnapshot(
                policy: policy, revision: revision, loadedAt: date, settings: settings, bundle: bundle,
                bundleSigningKey: signingKey))
    }

    /// This snapshot with its bundle issued again at `unixSeconds` (same policy and version).
    func reissuingBundle(atUnixSeconds unixSeconds: Int) -> PolicySnapshot {
        PolicySnapshot(
            policy: policy, revision: revision, loadedAt: loadedAt, settings: settings,
            bundle: bundle.reissued(atUnixSeconds: unixSeconds, signingKey: bundleSigningKey),
            bundleSigningKey: bundleSigningKey)
    }
}
