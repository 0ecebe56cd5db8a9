public import BundleSigning
import JSONSupport
public import NavigationPolicy

/// The active policy as an app needs it (docs/bundles.md): the chain and the default decision,
/// without the `server`, `intake` and `proxy` sections, as deterministic JSON bytes, with
/// their revision and, when a signing key is configured, a detached Ed25519 signature.
///
/// Built once per policy snapshot (start and reload), never per request: the endpoint and
/// `navpolicyd bundle` serve exactly these bytes.
public struct PolicyBundle: Sendable {
    /// The `format` member every bundle carries, so a client can refuse another document.
    public static let format = BundleFormat.name
    /// The bundle layout's version; a client refuses versions it does not know. Version 2
    /// added the signed freshness members (``Stamp``); version 1 had none.
    public static let version = BundleFormat.jsonVersion
    /// The config keys that the core compiler reads for the chain: all a bundle carries.
    static let policyKeys = BundleFormat.policyMembers

    /// What the signed bytes say about freshness and the key (docs/bundles.md, "Freshness"):
    /// the core's type, which the client reads with, so the writer and the reader cannot drift apart.
    public typealias Stamp = BundleStamp

    /// The body: `{"format":…,"version":2,"revision":…,"policyVersion":…,"issuedAt":…,
    /// "expiresAt":…,"keyId":…,"policy":{…}}` (`keyId` only when signed).
    public let bytes: [UInt8]
    /// The freshness members inside ``bytes``.
    public let stamp: Stamp
    /// `sha256:` hex of the config bytes, the daemon's policy revision.
    public let revision: String
    /// The 64-byte Ed25519 signature over ``bytes``; nil when no key is configured.
    public let signature: [UInt8]?
    /// The strong entity tag: the quoted revision.
    public let entityTag: String
    /// ``signature`` as standard base64, the `Navpolicy-Bundle-Signature` value.
    public let signatureBase64: String?
    /// The `policy` member, kept to re-issue the bundle without the config bytes.
    let policy: JSONObject
    /// The compiled image a compiled bundle carries after its head line (nil for JSON bundles),
    /// kept to re-issue it.
    let compiledImage: [UInt8]?

    // The header values are stored, not computed: every bundle request sends them, and
    // encoding the signature per request is the per-request work this type exists to avoid.
    init(
        bytes: [UInt8], stamp: Stamp, revision: String, policy: JSONObject, signature: [UInt8]?,
        compiledImage: [UInt8]? = nil
    ) {
        self.bytes = bytes
        self.compiledImage = compiledImage
        self.stamp = stamp
        self.policy = policy
        self.revision = revision
        self.signature = signature
        self.entityTag = "\"\(revision)\""
        self.signatureBase64 = signature.map(Base64Text.encode)
    }

    /// The revision of config bytes: `sha256:` and the hex SHA-256, as the daemon reports it.
    public static func revision(of configBytes: [UInt8]) -> String { PolicyRevision.of(sha256: SHA256.hash(configBytes)) }

    /// The bundle of a config that compiled, signed with `signingKey` when given.
    ///
    /// - Parameters:
    ///   - configBytes: the config file's bytes; they must have compiled (the caller checked).
    ///   - revision: their revision (`sha256:` hex).
    ///   - stamp: the freshness members; `keyId` must be set exactly when `signingKey` is.
    /// - Returns: nil only if the bytes do not parse as a JSON object, which a compiled config does.
    public static func make(
        configBytes: [UInt8], revision: String, stamp: Stamp, signingKey: Ed25519PrivateKey?
    ) -> PolicyBundle? {
        // Same parser settings as the compiler, so the same members are seen (duplicates kept,
        // in document order); a second parse per reload is cheap next to compiling.
        guard let document = try? JSONParser(rejectsDuplicateMembers: false).parse(configBytes),
            let root = document.objectValue
        else { return nil }
        var policy = JSONObject()
        for member in root.members where policyKeys.containsSameUTF8(member.key) {
            policy.append(member.key, member.value)
        }
        return make(policy: policy, revision: revision, stamp: stamp, signingKey: signingKey)
    }

    /// The members every layout starts with, in their fixed order: `format`, `version`,
    /// `revision`, the stamp, and `keyId` when signed.
    static func head(version: Int, revision: String, stamp: Stamp) -> JSONObject {
        var head: JSONObject = [
            "format": .string(format),
            "version": .number(Double(version)),
            "revision": .string(revision),
            "policyVersion": .number(Double(stamp.policyVersion)),
            "issuedAt": .number(Double(stamp.issuedAt)),
            "expiresAt": .number(Double(stamp.expiresAt)),
        ]
        if let keyId = stamp.keyId { head.append("keyId", .string(keyId)) }
        return head
    }

    /// The bundle of `policy` with `stamp`, signed with `signingKey` when given.
    static func make(policy: JSONObject, revision: String, stamp: Stamp, signingKey: Ed25519PrivateKey?) -> PolicyBundle {
        // Fixed member order: the bytes stay deterministic for the same config and stamp, so
        // `navpolicyd bundle --issued-at … --policy-version …` reproduces a served bundle.
        var body = head(version: version, revision: revision, stamp: stamp)
        body.append("policy", .object(policy))
        let bytes = JSONValue.object(body).serializedBytes
        return PolicyBundle(
            bytes: bytes, stamp: stamp, revision: revision, policy: policy, signature: signingKey?.sign(bytes))
    }
}

extension PolicyBundle {
    /// The layout of a compiled bundle (docs/bundles.md, "Compiled bundles").
    public static let compiledVersion = BundleFormat.compiledVersion

    /// A compiled bundle: one line of JSON (the version-2 members with `"version":3` and
    /// `"compiledPolicy":{"length":N}` in place of `policy`), a newline, then the image's
    /// bytes as they are. The signature covers all of it; an app maps the image without parsing
    /// or compiling it, and never holds it as a JSON string. The image's daemon sections
    /// (`server`, `intake`, `proxy`) are left out, as a JSON bundle leaves them out.
    ///
    /// - Returns: nil when `image` is not a valid image.
    public static func make(
        compiledImage image: [UInt8], revision: String, stamp: Stamp, signingKey: Ed25519PrivateKey?
    ) -> PolicyBundle? {
        guard let chainImage = try? PolicyImage.strippingDaemonSections(image, checksum: PolicyImageFile.checksum) else {
            return nil
        }
        return make(chainImage: chainImage, revision: revision, stamp: stamp, signingKey: signingKey)
    }

    /// ``make(compiledImage:revision:stamp:signingKey:)`` for an image already without daemon sections.
    static func make(chainImage compiledImage: [UInt8], revision: String, stamp: Stamp, signingKey: Ed25519PrivateKey?)
        -> PolicyBundle
    {
        var head = head(version: compiledVersion, revision: revision, stamp: stamp)
        head.append("compiledPolicy", .object(["length": .number(Double(compiledImage.count))]))
        // Compact JSON has no raw newline (strings escape it), so the first one ends the head.
        // Appended into one buffer of the final size: `+` made the image's 25 MiB twice.
        var bytes = JSONValue.object(head).serializedBytes
        bytes.reserveCapacity(bytes.count + 1 + compiledImage.count)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: compiledImage)
        return PolicyBundle(
            bytes: bytes, stamp: stamp, revision: revision, policy: [:], signature: signingKey?.sign(bytes),
            compiledImage: compiledImage)
    }

    /// Whether the bundle should be issued again at `unixSeconds`: half its lifetime has
    /// passed. A daemon that runs for longer than the lifetime without a reload must not serve
    /// a bundle apps refuse as expired.
    func isDueForReissue(atUnixSeconds unixSeconds: Int) -> Bool {
        stamp.isDueForReissue(atUnixSeconds: unixSeconds)
    }

    /// The same policy, revision, version and key id, issued at `issuedAt` with the same
    /// lifetime and signed again: apps holding this revision see no new policy (304, or the
    /// same revision), apps fetching it for the first time get an unexpired bundle.
    func reissued(atUnixSeconds issuedAt: Int, signingKey: Ed25519PrivateKey?) -> PolicyBundle {
        var next = stamp
        next.expiresAt = issuedAt + (stamp.expiresAt - stamp.issuedAt)
        next.issuedAt = issuedAt
        if let compiledImage {
            return Self.make(chainImage: compiledImage, revision: revision, stamp: next, signingKey: signingKey)
        }
        return Self.make(policy: policy, revision: revision, stamp: next, signingKey: signingKey)
    }
}

extension BundleStamp {
    /// The stamp of a bundle built at `issuedAt` under `settings`: the configured
    /// `policyVersion`, else `issuedAt` raised above `previousVersion` (two reloads in one
    /// second must still give increasing versions).
    public static func make(
        issuedAt: Int, settings: BundleSettings, signingKey: Ed25519PrivateKey?, previousVersion: Int?
    ) -> BundleStamp {
        let derived = max(issuedAt, (previousVersion ?? 0) + 1)
        return BundleStamp(
            policyVersion: settings.policyVersion ?? derived, issuedAt: issuedAt,
            expiresAt: issuedAt + settings.lifetimeSeconds,
            keyId: signingKey.map { settings.keyId ?? BundleKeyID.derived(from: $0.publicKey) })
    }
}
