public import BundleSigning
import JSONSupport
import NavigationPolicy

/// The active policy as an app needs it (docs/bundles.md): the chain and the default decision,
/// without the `server`, `intake` and `proxy` sections, as deterministic JSON bytes, with
/// their revision and, when a signing key is configured, a detached Ed25519 signature.
///
/// Built once per policy snapshot (start and reload), never per request: the endpoint and
/// `navpolicyd bundle` serve exactly these bytes.
public struct PolicyBundle: Sendable {
    /// The `format` member every bundle carries, so a client can refuse another document.
    public static let format = "navpolicy-bundle"
    /// The bundle layout's version; a client refuses versions it does not know.
    public static let version = 1
    /// The config keys that the core compiler reads for the chain: all a bundle carries.
    static let policyKeys = ["defaultDecision", "handlers"]

    /// The body: `{"format":…,"version":1,"revision":…,"policy":{…}}`.
    public let bytes: [UInt8]
    /// `sha256:` hex of the config bytes, the daemon's policy revision.
    public let revision: String
    /// The 64-byte Ed25519 signature over ``bytes``; nil when no key is configured.
    public let signature: [UInt8]?
    /// The strong entity tag: the quoted revision.
    public let entityTag: String
    /// ``signature`` as standard base64, the `Navpolicy-Bundle-Signature` value.
    public let signatureBase64: String?

    // The header values are stored, not computed: every bundle request sends them, and
    // encoding the signature per request is the per-request work this type exists to avoid.
    init(bytes: [UInt8], revision: String, signature: [UInt8]?) {
        self.bytes = bytes
        self.revision = revision
        self.signature = signature
        self.entityTag = "\"\(revision)\""
        self.signatureBase64 = signature.map(Base64Text.encode)
    }

    /// The revision of config bytes: `sha256:` and the hex SHA-256, as the daemon reports it.
    public static func revision(of configBytes: [UInt8]) -> String { "sha256:" + SHA256.hexDigest(configBytes) }

    /// The bundle of a config that compiled, signed with `signingKey` when given.
    ///
    /// - Parameters:
    ///   - configBytes: the config file's bytes; they must have compiled (the caller checked).
    ///   - revision: their revision (`sha256:` hex).
    /// - Returns: nil only if the bytes do not parse as a JSON object, which a compiled config does.
    public static func make(configBytes: [UInt8], revision: String, signingKey: Ed25519PrivateKey?) -> PolicyBundle? {
        // Same parser settings as the compiler, so the same members are seen (duplicates kept,
        // in document order); a second parse per reload is cheap next to compiling.
        guard let document = try? JSONParser(rejectsDuplicateMembers: false).parse(configBytes),
            let root = document.objectValue
        else { return nil }
        var policy = JSONObject()
        for member in root.members where policyKeys.contains(member.key) {
            policy.append(member.key, member.value)
        }
        let body: JSONValue = .object([
            "format": .string(format),
            "version": .number(Double(version)),
            "revision": .string(revision),
            "policy": .object(policy),
        ])
        let bytes = body.serializedBytes
        return PolicyBundle(bytes: bytes, revision: revision, signature: signingKey?.sign(bytes))
    }
}
