import JSONSupport
import NavigationPolicy

/// A policy bundle checked as far as its signature from its first bytes alone, in the order and
/// with the checks of the app client's `VerifiedBundle` (this module compiles the client's
/// `BundleDocument`, `BundleSigningHead`, `CompiledBundleHead`, `BundleStamp`,
/// `BundleKeyChoice` and `BundleRejection`): the size, the layout, the unversioned refusal, and
/// which trusted key must verify the signature.
///
/// Linear memory never shrinks, so a bundle nobody trusted signed must grow it neither by a
/// parse tree (attack round 7, F7) nor by its own bytes (round 10, F5: a forged 256 MiB compiled
/// bundle was copied in whole before its unknown key id was refused). So only the bundle's
/// first ``headBytes`` are copied in for this; JavaScript verifies the Ed25519 signature with
/// WebCrypto (the module has no crypto but the image checksum) over the bytes it holds, and
/// copies the whole bundle in for ``load(_:nowSeconds:)`` only once ``checkSignature(verified:)``
/// passed. The rule and its figures: docs/bundles.md, "What a reader reads before the signature".
struct OpenedBundle {
    private enum Head {
        case json(BundleSigningHead)
        case compiled(CompiledBundleHead)
    }

    /// The key ids JavaScript must try, in order; `.none` when no key is trusted.
    let keys: BundleKeyChoice
    /// The bundle's length: the whole bundle `load` gets must have as many bytes.
    let bundleCount: Int
    /// What the head was read with, to read it again from the whole bundle in `load`.
    private let trustedKeyIDs: [String]
    private let hasSignature: Bool
    private let acceptsUnversionedBundles: Bool

    /// How many of a bundle's first bytes the checks before the signature read: both head
    /// readers' limit (64 KiB).
    static let headBytes = max(BundleSigningHead.maximumBytes, CompiledBundleHead.maximumHeadLength)

    /// - Parameters:
    ///   - prefix: the bundle's first `min(bundleCount, headBytes)` bytes.
    ///   - bundleCount: how many bytes the whole bundle has.
    ///   - trustedKeyIDs: the ids of the keys JavaScript holds (`trustedKeys`' names).
    init(
        prefix: UnsafeRawBufferPointer, bundleCount: Int, trustedKeyIDs: [String], hasSignature: Bool,
        acceptsUnversionedBundles: Bool
    ) throws(BundleRejection) {
        self.bundleCount = bundleCount
        self.trustedKeyIDs = trustedKeyIDs
        self.hasSignature = hasSignature
        self.acceptsUnversionedBundles = acceptsUnversionedBundles
        keys = try Self.readHead(
            prefix, bundleCount: bundleCount, trustedKeyIDs: trustedKeyIDs, hasSignature: hasSignature,
            acceptsUnversionedBundles: acceptsUnversionedBundles
        ).keys
    }

    /// The checks of `VerifiedBundle` before the signature, on the first bytes of a bundle of
    /// `bundleCount` bytes: the same refusal, with the same reason, as on the whole bundle.
    private static func readHead(
        _ prefix: UnsafeRawBufferPointer, bundleCount: Int, trustedKeyIDs: [String], hasSignature: Bool,
        acceptsUnversionedBundles: Bool
    ) throws(BundleRejection) -> (head: Head, keys: BundleKeyChoice) {
        if CompiledBundleHead.isCompiled(prefix) {
            guard bundleCount <= CompiledBundleHead.maximumBundleBytes else {
                throw BundleRejection(
                    .tooLarge, "\(bundleCount) bytes; the limit is \(CompiledBundleHead.maximumBundleBytes)")
            }
            let head = try CompiledBundleHead(prefix: prefix, bundleCount: bundleCount)
            let keys = try BundleKeyChoice.choose(
                trustedKeyIDs: trustedKeyIDs, hasSingleKey: false, hasSignature: hasSignature, isVersionOne: false,
                keyId: head.stamp.keyId)
            return (.compiled(head), keys)
        }
        guard bundleCount <= BundleDocument.maximumBytes else {
            throw BundleRejection(.tooLarge, "\(bundleCount) bytes; the limit is \(BundleDocument.maximumBytes)")
        }
        let head = try BundleSigningHead(prefix: prefix, bundleCount: bundleCount)
        if head.isVersionOne, !acceptsUnversionedBundles { throw BundleDocument.unversionedRejection }
        let keys = try BundleKeyChoice.choose(
            trustedKeyIDs: trustedKeyIDs, hasSingleKey: false, hasSignature: hasSignature,
            isVersionOne: head.isVersionOne, keyId: head.keyId)
        return (.json(head), keys)
    }

    /// Refuses the bundle when a key is trusted and JavaScript did not verify the signature
    /// with one of ``keys``: before the whole bundle is copied in.
    func checkSignature(verified: Bool) throws(BundleRejection) {
        if keys != .none, !verified { throw BundleKeyChoice.badSignature }
    }

    /// The bundle's policy, from `whole` (the bundle whose head was read, as the signature was
    /// checked over it; its `bundleCount` bytes), once ``checkSignature(verified:)`` passed; and
    /// what JavaScript shows of it (`policyVersion` for its rollback check).
    ///
    /// The head is read again from `whole`, and the policy read by that head: what is parsed is
    /// what the signature covers, even were the caller's bytes changed (a SharedArrayBuffer)
    /// between the head's copy and the whole's. Should they name another key, the signature
    /// was checked with a key they do not name: `bad-signature`.
    ///
    /// A compiled bundle's image is checked as the daemon checks images, checksum included
    /// (`PortableBLAKE2b`); the app client skips the checksum because the signature covers
    /// every byte, but a WebAssembly build may be handed unsigned bundles.
    func load(_ whole: PolicyImageBytes, nowSeconds: BundleNumber) throws(BundleRejection) -> (CompiledPolicy, JSONObject) {
        let (head, wholeKeys) = try Self.readHead(
            whole.buffer, bundleCount: whole.buffer.count, trustedKeyIDs: trustedKeyIDs, hasSignature: hasSignature,
            acceptsUnversionedBundles: acceptsUnversionedBundles)
        guard wholeKeys == keys else { throw BundleKeyChoice.badSignature }
        switch head {
        case .json(let head):
            let document = try BundleDocument(bytes: Array(whole.buffer), signedHead: head)
            if let stamp = document.stamp, stamp.isExpired(atUnixSeconds: nowSeconds) {
                throw BundleRejection(.expired, stamp.expiryReason(atUnixSeconds: nowSeconds))
            }
            let policy = try document.compiledPolicy()
            return (policy, Self.summary(layout: "json", revision: document.revision, stamp: document.stamp))
        case .compiled(let head):
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
