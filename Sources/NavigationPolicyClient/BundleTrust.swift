/// Which bundles a client (or `navpolicyd bundle verify`) accepts: the keys, by id, and whether
/// bundles from before signed freshness (layout version 1) are still read.
///
/// With ``trustedKeys``, a bundle must name its key in its signed `keyId` and verify with that
/// key alone: a rotation lists the old and the new id side by side (docs/bundles.md, "Key
/// rotation"). ``verifier`` is the single-key form from before key ids: it checks every bundle,
/// whatever id it names, and is used only when ``trustedKeys`` is empty.
public struct BundleTrust: Sendable {
    /// Key id (the bundle's `keyId`, e.g. `ed25519-3f2a…`) → the verifier of that public key.
    public var trustedKeys: [String: any BundleSignatureVerifier]
    /// One key for every bundle, whatever its `keyId`; ignored when ``trustedKeys`` is set.
    public var verifier: (any BundleSignatureVerifier)?
    /// Reads version-1 bundles, which carry no `policyVersion`, `issuedAt`, `expiresAt` or
    /// `keyId`: they cannot be checked for replay or expiry, so they are refused unless this is
    /// set (for an app whose shipped bundle predates version 2, during one upgrade). Such a
    /// bundle, when signed, must verify with ``verifier`` or one of ``trustedKeys``.
    public var acceptsUnversionedBundles: Bool

    public init(
        trustedKeys: [String: any BundleSignatureVerifier] = [:], verifier: (any BundleSignatureVerifier)? = nil,
        acceptsUnversionedBundles: Bool = false
    ) {
        self.trustedKeys = trustedKeys
        self.verifier = verifier
        self.acceptsUnversionedBundles = acceptsUnversionedBundles
    }

    /// Checks `signature` over `bytes` with the key `keyId` names; a version-1 bundle names none.
    func checkSignature(_ signature: [UInt8]?, bytes: [UInt8], isVersionOne: Bool, keyId: String?) throws(BundleRejection) {
        try checkSignature(signature, isVersionOne: isVersionOne, keyId: keyId) { $0.isValidSignature($1, for: bytes) }
    }

    /// ``checkSignature(_:bytes:isVersionOne:keyId:)`` over bytes in place (a compiled bundle).
    func checkSignature(_ signature: [UInt8]?, buffer: UnsafeRawBufferPointer, keyId: String?) throws(BundleRejection) {
        try checkSignature(signature, isVersionOne: false, keyId: keyId) { $0.isValidSignature($1, forBytesIn: buffer) }
    }

    /// Which key must verify a bundle that names `keyId` and comes with `signature`: no byte
    /// of the bundle is needed, so a missing signature or an untrusted key id is refused before
    /// the bundle is read any further.
    func keyChoice(_ signature: [UInt8]?, isVersionOne: Bool, keyId: String?) throws(BundleRejection) -> BundleKeyChoice {
        try BundleKeyChoice.choose(
            trustedKeyIDs: Array(trustedKeys.keys), hasSingleKey: verifier != nil, hasSignature: signature != nil,
            isVersionOne: isVersionOne, keyId: keyId)
    }

    private func checkSignature(
        _ signature: [UInt8]?, isVersionOne: Bool, keyId: String?,
        verifies: (any BundleSignatureVerifier, [UInt8]) -> Bool
    ) throws(BundleRejection) {
        let candidates: [any BundleSignatureVerifier]
        switch try keyChoice(signature, isVersionOne: isVersionOne, keyId: keyId) {
        case .none: return
        case .singleKey: candidates = verifier.map { [$0] } ?? []
        case .trustedKeys(let ids): candidates = ids.compactMap { trustedKeys[$0] }
        }
        guard let signature, candidates.contains(where: { verifies($0, signature) }) else {
            throw BundleKeyChoice.badSignature
        }
    }
}
