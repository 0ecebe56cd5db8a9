/// Checks the detached signature the daemon sends with a policy bundle.
///
/// Each platform fills this with its own crypto: CryptoKit's `Curve25519.Signing.PublicKey` on
/// Apple platforms, libsodium here (`NavigationPolicyClientSodium`). The signature is the
/// 64-byte Ed25519 signature over the exact bundle bytes (`Navpolicy-Bundle-Signature`,
/// base64-decoded). Return `false` for anything that is not a valid signature by the app's key,
/// including a signature of the wrong length: the client then keeps its previous bundle.
public protocol BundleSignatureVerifier: Sendable {
    /// Whether `signature` is a valid signature of `bytes` by the key the app trusts.
    func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool
    /// The same check over bytes in place (compiled bundles); by default a copy is checked.
    func isValidSignature(_ signature: [UInt8], forBytesIn buffer: UnsafeRawBufferPointer) -> Bool
}

extension BundleSignatureVerifier {
    public func isValidSignature(_ signature: [UInt8], forBytesIn buffer: UnsafeRawBufferPointer) -> Bool {
        isValidSignature(signature, for: Array(buffer))
    }
}
