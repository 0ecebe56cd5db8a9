public import BundleSigning
public import NavigationPolicyClient

/// Checks bundle signatures with libsodium's Ed25519 (the daemon's own signing library):
/// the verifier the tests and Linux apps use. Apple apps use CryptoKit instead
/// (docs/integrations/ios.md); both take the same raw 32-byte public key.
public struct SodiumBundleVerifier: BundleSignatureVerifier {
    public let publicKey: Ed25519PublicKey

    public init(publicKey: Ed25519PublicKey) {
        self.publicKey = publicKey
    }

    /// A verifier for the base64 public key `navpolicyd bundle --public-key --sign KEY` prints.
    public init(publicKeyBase64: String) throws(BundleSigningError) {
        self.publicKey = try Ed25519PublicKey(base64: publicKeyBase64)
    }

    public func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool {
        publicKey.isValidSignature(signature, for: bytes)
    }

    public func isValidSignature(_ signature: [UInt8], forBytesIn buffer: UnsafeRawBufferPointer) -> Bool {
        publicKey.isValidSignature(signature, forBytesIn: buffer)
    }
}
