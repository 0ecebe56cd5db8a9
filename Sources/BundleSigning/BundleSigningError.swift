/// Why a key, a key file or a signature input was refused.
///
/// A struct around a kind, so that new kinds can be added without breaking callers that switch
/// on ``kind``; ``description`` is the sentence users read (it never contains key material).
public struct BundleSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that act on the category.
    public enum Kind: Sendable, Equatable {
        /// The key file does not exist.
        case fileMissing
        /// The key file exists but cannot be opened or read.
        case fileUnreadable
        /// The key file is larger than any Ed25519 key file can be.
        case fileTooLarge
        /// The text is not a PEM `PRIVATE KEY` block (or is an encrypted or OpenSSH key).
        case notPEM
        /// The PEM body is not valid base64.
        case invalidBase64
        /// The PKCS#8 structure is not an Ed25519 private key in a form this library reads.
        case notEd25519PrivateKey
        /// The PKCS#8 structure carries a public key that does not belong to its private key.
        case publicKeyMismatch
        /// A raw public key is not exactly 32 bytes.
        case invalidPublicKeyLength
        /// libsodium could not be initialised (no entropy source at start).
        case cryptoUnavailable
    }

    /// The category of the error.
    public let kind: Kind
    /// The reason, as a sentence fragment that follows the key's source (path or option).
    public let reason: String

    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }
}
