import JSONSupport
import NavigationPolicy

/// Which key a bundle's signature must verify with: ``BundleTrust``'s rule over key ids alone.
///
/// The rule is apart from the keys so that the WebAssembly build, whose keys live in
/// JavaScript's WebCrypto, applies this very rule (it compiles this file; issue 43) and only
/// runs the verification itself.
enum BundleKeyChoice: Equatable {
    /// No key is configured: the signature is not checked.
    case none
    /// The single-key form from before key ids: the one key, whatever id the bundle names.
    case singleKey
    /// These trusted key ids, in this order; the signature must verify with one of them.
    case trustedKeys([String])

    /// The choice for a bundle that names `keyId` (nil: none) in layout version 1 or later.
    ///
    /// - Throws: `unsigned` when a key is configured and no signature came; `unknown-key` when
    ///   the bundle names no key id or one that is not trusted.
    static func choose(
        trustedKeyIDs: [String], hasSingleKey: Bool, hasSignature: Bool, isVersionOne: Bool, keyId: String?
    ) throws(BundleRejection) -> BundleKeyChoice {
        guard !trustedKeyIDs.isEmpty || hasSingleKey else { return .none }
        guard hasSignature else {
            throw BundleRejection(.unsigned, "a signature verifier is configured and the bundle has no signature")
        }
        if trustedKeyIDs.isEmpty { return .singleKey }
        // A version-1 bundle, read only with acceptsUnversionedBundles: it names no key.
        if isVersionOne { return .trustedKeys(trustedKeyIDs.sorted()) }
        guard let keyId else {
            throw BundleRejection(.unknownKey, "the bundle names no keyId; it was built unsigned")
        }
        // Byte for byte, not String's canonical equivalence: the key is then looked up by the
        // very id trusted (WebCrypto's keys by JavaScript's exact string; outside attack round
        // 12, F6), and "\u{212A}1" (KELVIN SIGN) is not the key id "K1".
        guard trustedKeyIDs.contains(where: { $0.hasSameUTF8(as: keyId) }) else {
            let known = trustedKeyIDs.sorted().joined(separator: ", ")
            throw BundleRejection(
                .unknownKey, "signed with key id \(Self.shown(keyId)), which is not trusted (trusted: \(known))")
        }
        return .trustedKeys([keyId])
    }

    /// The most of an untrusted `keyId` a message repeats: it comes from the bundle before any
    /// check, and a bundle may be 32 MiB (attack round 8, F2: a 20 MiB id gave 20 MiB log
    /// lines). ``BundleText/shown(_:)``'s rule, the one for every text from a bundle.
    static func shown(_ keyId: String) -> String {
        BundleText.shown(keyId)
    }

    /// Why a signature that none of the chosen keys verifies is refused.
    static let badSignature = BundleRejection(.badSignature, "the signature does not verify with the configured key")
}
