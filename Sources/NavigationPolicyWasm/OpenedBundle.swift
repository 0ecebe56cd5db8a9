import JSONSupport
import NavigationPolicy

/// A policy bundle read as far as its signature check, in the order and with the checks of the
/// app client's `VerifiedBundle` (this module compiles the client's `BundleDocument`,
/// `BundleSigningHead`, `CompiledBundleHead`, `BundleStamp`, `BundleKeyChoice` and
/// `BundleRejection`): the size, the layout, the unversioned refusal, and which trusted key must
/// verify the signature. A JSON bundle is read only as far as its head (the members before
/// `policy`) here: linear memory never shrinks, so an unsigned or untrusted bundle must not
/// grow it by a parse tree (attack round 7, F7); the document is parsed in `load`, once
/// JavaScript verified the signature.
/// JavaScript then verifies the Ed25519 signature with WebCrypto (the module has no crypto but
/// the image checksum) and calls ``load(nowSeconds:signatureVerified:)`` for the rest: the
/// members, the expiry and the policy.
struct OpenedBundle {
    private enum Form {
        /// The bundle as JavaScript handed it over (not copied) and its head.
        case json(PolicyImageBytes, BundleSigningHead)
        /// The whole bundle, which the policy's tables read in place from then on.
        case compiled(PolicyImageBytes, CompiledBundleHead)
    }

    private let form: Form
    /// The key ids JavaScript must try, in order; `.none` when no key is trusted.
    let keys: BundleKeyChoice

    /// - Parameters:
    ///   - bytes: the bundle as received, kept until it is loaded or discarded.
    ///   - trustedKeyIDs: the ids of the keys JavaScript holds (`trustedKeys`' names).
    init(
        _ bytes: PolicyImageBytes, trustedKeyIDs: [String], hasSignature: Bool, acceptsUnversionedBundles: Bool
    ) throws(BundleRejection) {
        if CompiledBundleHead.isCompiled(bytes.buffer) {
            guard bytes.buffer.count <= CompiledBundleHead.maximumBundleBytes else {
                throw BundleRejection(
                    .tooLarge, "\(bytes.buffer.count) bytes; the limit is \(CompiledBundleHead.maximumBundleBytes)")
            }
            let head = try CompiledBundleHead(bytes.buffer)
            keys = try BundleKeyChoice.choose(
                trustedKeyIDs: trustedKeyIDs, hasSingleKey: false, hasSignature: hasSignature, isVersionOne: false,
                keyId: head.stamp.keyId)
            form = .compiled(bytes, head)
            return
        }
        guard bytes.buffer.count <= BundleDocument.maximumBytes else {
            throw BundleRejection(.tooLarge, "\(bytes.buffer.count) bytes; the limit is \(BundleDocument.maximumBytes)")
        }
        let head = try BundleSigningHead(bytes.buffer)
        if head.isVersionOne, !acceptsUnversionedBundles { throw BundleDocument.unversionedRejection }
        keys = try BundleKeyChoice.choose(
            trustedKeyIDs: trustedKeyIDs, hasSingleKey: false, hasSignature: hasSignature,
            isVersionOne: head.isVersionOne, keyId: head.keyId)
        form = .json(bytes, head)
    }

    /// The bundle's policy, after JavaScript verified the signature with ``keys`` (ignored when
    /// no key is trusted), and what JavaScript shows of it (`policyVersion` for its rollback check).
    ///
    /// A compiled bundle's image is checked as the daemon checks images, checksum included
    /// (`PortableBLAKE2b`); the app client skips the checksum because the signature covers
    /// every byte, but a WebAssembly build may be handed unsigned bundles.
    func load(nowSeconds: BundleNumber, signatureVerified: Bool) throws(BundleRejection) -> (CompiledPolicy, JSONObject) {
        if keys != .none, !signatureVerified { throw BundleKeyChoice.badSignature }
        switch form {
        case .json(let whole, let head):
            let document = try BundleDocument(bytes: Array(whole.buffer), signedHead: head)
            if let stamp = document.stamp, stamp.isExpired(atUnixSeconds: nowSeconds) {
                throw BundleRejection(.expired, stamp.expiryReason(atUnixSeconds: nowSeconds))
            }
            let policy = try document.compiledPolicy()
            return (policy, Self.summary(layout: "json", revision: document.revision, stamp: document.stamp))
        case .compiled(let whole, let head):
            if head.stamp.isExpired(atUnixSeconds: nowSeconds) {
                throw BundleRejection(.expired, head.stamp.expiryReason(atUnixSeconds: nowSeconds))
            }
            let policy = try head.policy(in: whole, checksum: { PortableBLAKE2b.hash256($0) })
            return (policy, Self.summary(layout: "compiled", revision: head.revision, stamp: head.stamp))
        }
    }

    /// `{"layout","revision","policyVersion","issuedAt","expiresAt","keyId"}` (null members for a version-1 bundle).
    private static func summary(layout: String, revision: String, stamp: BundleStamp?) -> JSONObject {
        func number(_ value: BundleNumber?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        return [
            "layout": .string(layout), "revision": .string(revision), "policyVersion": number(stamp?.policyVersion),
            "issuedAt": number(stamp?.issuedAt), "expiresAt": number(stamp?.expiresAt),
            "keyId": stamp?.keyId.map { .string($0) } ?? .null,
        ]
    }

    /// What JavaScript needs to verify the signature: `{"keyIds":[…]}`, the trusted ids to try
    /// in order (empty: no key is trusted, nothing to verify).
    var verificationRequest: JSONObject {
        switch keys {
        case .none, .singleKey: ["keyIds": .array([])]
        case .trustedKeys(let ids): ["keyIds": .array(ids.map { .string($0) })]
        }
    }
}
