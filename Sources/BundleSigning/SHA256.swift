import CSodium

/// SHA-256 (FIPS 180-4) through libsodium's `crypto_hash_sha256`, used to name a policy
/// revision by the hash of its config bytes and to pin inline status-page text in its CSP.
///
/// It lives here because this is the module that links libsodium: the daemon and the command
/// line use the same library the bundle signatures use instead of a hand-written hash.
public enum SHA256 {
    /// The lower-case hex digest of `bytes`.
    public static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        let digest = hash(Array(bytes))
        let hex = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(64)
        for byte in digest {
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The 32-byte digest of `message`.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        // libsodium asks for sodium_init before any call. SHA-256 itself needs neither the
        // random source nor the CPU feature probe that init can fail on, so the hash is
        // computed whatever init answered; touching `isReady` only makes sure it ran once.
        _ = Sodium.isReady
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        // crypto_hash_sha256 always returns 0: it has no failing input.
        _ = message.withUnsafeBufferPointer { input in
            crypto_hash_sha256(&digest, input.baseAddress, UInt64(input.count))
        }
        return digest
    }

    /// The 32-byte digest of bytes in place (a mapped policy image: no copy of its megabytes).
    public static func hash(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        _ = Sodium.isReady
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
        return digest
    }
}
