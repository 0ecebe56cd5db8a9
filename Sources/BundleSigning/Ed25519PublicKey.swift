import CSodium

/// An Ed25519 verification key: the raw 32 bytes (RFC 8032 §5.1.5 encoding).
public struct Ed25519PublicKey: Sendable, Equatable {
    /// The raw 32-byte key.
    public let rawBytes: [UInt8]

    /// A key from its 32 raw bytes.
    /// - Throws: ``BundleSigningError`` when the length is not 32.
    public init(rawBytes: [UInt8]) throws(BundleSigningError) {
        try Sodium.requireReady()
        guard rawBytes.count == Int(crypto_sign_PUBLICKEYBYTES) else {
            throw BundleSigningError(
                .invalidPublicKeyLength, "is \(rawBytes.count) bytes; an Ed25519 public key is \(crypto_sign_PUBLICKEYBYTES)")
        }
        self.rawBytes = rawBytes
    }

    /// A key from standard padded base64 of its 32 raw bytes (what `navpolicyd bundle --public-key`
    /// prints); surrounding whitespace, such as a file's trailing newline, is ignored.
    public init(base64: String) throws(BundleSigningError) {
        let trimmed = base64.utf8.drop { Self.isWhitespace($0) }.reversed().drop { Self.isWhitespace($0) }.reversed()
        guard let bytes = Sodium.decodeBase64(Array(trimmed)) else {
            throw BundleSigningError(.invalidBase64, "is not valid base64")
        }
        try self.init(rawBytes: bytes)
    }

    init(validatedRawBytes: [UInt8]) { self.rawBytes = validatedRawBytes }

    /// The key as standard padded base64.
    public var base64: String { Sodium.base64(rawBytes) }

    /// True when `signature` is a valid Ed25519 signature of exactly `bytes` by this key.
    /// A signature of the wrong length is simply invalid (it comes from the network).
    public func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool {
        guard Sodium.isReady, signature.count == Int(crypto_sign_BYTES) else { return false }
        return crypto_sign_verify_detached(signature, bytes, UInt64(bytes.count), rawBytes) == 0
    }

    /// ``isValidSignature(_:for:)`` over bytes in place (a compiled bundle of tens of MB: no copy).
    public func isValidSignature(_ signature: [UInt8], forBytesIn buffer: UnsafeRawBufferPointer) -> Bool {
        guard Sodium.isReady, signature.count == Int(crypto_sign_BYTES) else { return false }
        let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return crypto_sign_verify_detached(signature, start, UInt64(buffer.count), rawBytes) == 0
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
