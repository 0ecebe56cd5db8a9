import CSodium

/// An Ed25519 signing key, read from PEM PKCS#8 (`openssl genpkey -algorithm ed25519`).
///
/// A final class rather than a struct so the secret lives in one place: it is not copied with
/// the value, and `deinit` wipes it with `sodium_memzero`, which the optimiser may not remove.
public final class Ed25519PrivateKey: Sendable {
    /// libsodium's 64-byte secret key (seed followed by public key).
    private let secretKey: [UInt8]
    /// The raw 32-byte public key: what apps verify with, e.g. CryptoKit's
    /// `Curve25519.Signing.PublicKey(rawRepresentation:)`.
    public let publicKeyBytes: [UInt8]

    /// Reads a key from PEM text holding one `PRIVATE KEY` block (PKCS#8 version 0 or 1).
    /// - Throws: ``BundleSigningError`` saying what is wrong with the text (never its content).
    public convenience init(pem: String) throws(BundleSigningError) {
        try self.init(pemBytes: Array(pem.utf8))
    }

    /// Reads a key from a PEM file; errors are reasons to print after the path.
    public convenience init(pemFile path: String) throws(BundleSigningError) {
        try self.init(pemBytes: try KeyFile.read(path))
    }

    private init(pemBytes: [UInt8]) throws(BundleSigningError) {
        try Sodium.requireReady()
        var der = try PKCS8.derFromPEM(pemBytes)
        defer { sodium_memzero(&der, der.count) }
        guard var parsed = PKCS8.ed25519Seed(fromDER: der) else {
            throw BundleSigningError(
                .notEd25519PrivateKey,
                "is not an Ed25519 private key (generate one with: openssl genpkey -algorithm ed25519 -out bundle-key.pem)")
        }
        defer { sodium_memzero(&parsed.seed, parsed.seed.count) }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, parsed.seed) == 0 else {
            throw BundleSigningError(.notEd25519PrivateKey, "is not a usable Ed25519 private key")
        }
        if let embedded = parsed.publicKey, embedded != publicKey {
            throw BundleSigningError(.publicKeyMismatch, "carries a public key that does not match its private key")
        }
        self.secretKey = secretKey
        self.publicKeyBytes = publicKey
    }

    deinit {
        secretKey.withUnsafeBufferPointer { buffer in
            // The storage is uniquely owned here (the array never leaves this object), so
            // wiping it through a mutable cast of the same memory is safe.
            if let base = buffer.baseAddress { sodium_memzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
        }
    }

    /// The public key as apps configure it: standard base64 of the 32 raw bytes.
    public var publicKeyBase64: String { Sodium.base64(publicKeyBytes) }

    /// The matching public key.
    public var publicKey: Ed25519PublicKey { Ed25519PublicKey(validatedRawBytes: publicKeyBytes) }

    /// The 64-byte detached Ed25519 signature (RFC 8032, pure Ed25519) over `bytes`.
    public func sign(_ bytes: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        // crypto_sign_detached cannot fail for a key made by crypto_sign_seed_keypair.
        _ = crypto_sign_detached(&signature, nil, bytes, UInt64(bytes.count), secretKey)
        return signature
    }
}
