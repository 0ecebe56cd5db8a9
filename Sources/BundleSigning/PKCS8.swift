/// The two DER encodings of an Ed25519 private key in PKCS#8 (RFC 8410 §7), read as fixed
/// byte layouts rather than through a general ASN.1 parser: an Ed25519 key has exactly these
/// shapes, so anything else (another algorithm, an encrypted key, trailing bytes) is refused.
enum PKCS8 {
    /// `OneAsymmetricKey` version 0 (what `openssl genpkey -algorithm ed25519` writes):
    /// SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING seed } }.
    static let version0Prefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]
    /// Version 1 adds `[1] publicKey` (BIT STRING, no unused bits) after the seed.
    static let version1Prefix: [UInt8] = [
        0x30, 0x51, 0x02, 0x01, 0x01, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]
    static let version1PublicKeyTag: [UInt8] = [0x81, 0x21, 0x00]

    /// The 32-byte seed, and the public key when the structure carries one.
    static func ed25519Seed(fromDER der: [UInt8]) -> (seed: [UInt8], publicKey: [UInt8]?)? {
        let seedLength = 32
        if der.count == version0Prefix.count + seedLength, der.starts(with: version0Prefix) {
            return (Array(der.suffix(seedLength)), nil)
        }
        let version1Length = version1Prefix.count + seedLength + version1PublicKeyTag.count + seedLength
        if der.count == version1Length, der.starts(with: version1Prefix) {
            let seed = Array(der[version1Prefix.count..<(version1Prefix.count + seedLength)])
            let tail = der.suffix(version1PublicKeyTag.count + seedLength)
            guard tail.starts(with: version1PublicKeyTag) else { return nil }
            return (seed, Array(tail.suffix(seedLength)))
        }
        return nil
    }

    /// The DER bytes of the single `-----BEGIN PRIVATE KEY-----` block in `text`.
    static func derFromPEM(_ text: [UInt8]) throws(BundleSigningError) -> [UInt8] {
        let source = String(decoding: text, as: UTF8.self)
        if source.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            throw BundleSigningError(
                .notPEM, "is an encrypted private key; the daemon reads unencrypted keys only (protect the file with its mode)")
        }
        if source.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
            throw BundleSigningError(
                .notPEM, "is an OpenSSH key; generate a PKCS#8 key with: openssl genpkey -algorithm ed25519 -out bundle-key.pem")
        }
        let begin = "-----BEGIN PRIVATE KEY-----"
        let end = "-----END PRIVATE KEY-----"
        guard let beginRange = source.firstRange(of: begin), let endRange = source.firstRange(of: end),
            beginRange.upperBound <= endRange.lowerBound
        else {
            throw BundleSigningError(
                .notPEM,
                "is not a PEM private key (expected a \"\(begin)\" block; generate one with: "
                    + "openssl genpkey -algorithm ed25519 -out bundle-key.pem)")
        }
        // A second block would leave it unclear which key signs.
        if source[endRange.upperBound...].contains(begin) {
            throw BundleSigningError(.notPEM, "holds more than one private key block")
        }
        let body = Array(source[beginRange.upperBound..<endRange.lowerBound].utf8)
        guard let der = Sodium.decodeBase64(body, ignoring: " \t\r\n") else {
            throw BundleSigningError(.invalidBase64, "has a PEM body that is not valid base64")
        }
        return der
    }
}
