import CSodium

/// libsodium's one-time initialisation.
///
/// `sodium_init` is thread-safe and idempotent, but it must have returned before any other
/// call; a static `let` runs it exactly once, on first use, from whichever thread gets there.
enum Sodium {
    /// True when libsodium is usable (`sodium_init` returned 0 = initialised, 1 = already was).
    static let isReady: Bool = sodium_init() >= 0

    static func requireReady() throws(BundleSigningError) {
        guard isReady else { throw BundleSigningError(.cryptoUnavailable, "libsodium could not be initialised") }
    }

    /// Standard base64 with padding (RFC 4648 §4), the form HTTP headers and CryptoKit users expect.
    static func base64(_ bytes: [UInt8]) -> String {
        // The encoded length including the terminating NUL that sodium_bin2base64 writes.
        let capacity = Int(sodium_base64_encoded_len(bytes.count, sodium_base64_VARIANT_ORIGINAL))
        var text = [CChar](repeating: 0, count: capacity)
        _ = bytes.withUnsafeBufferPointer { input in
            sodium_bin2base64(&text, capacity, input.baseAddress, input.count, sodium_base64_VARIANT_ORIGINAL)
        }
        // Drop the NUL; the rest is ASCII by construction.
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes padded standard base64, skipping the characters in `ignoring` (line breaks in a
    /// PEM body); any other character outside the alphabet makes the whole input invalid.
    static func decodeBase64(_ text: [UInt8], ignoring: String = "") -> [UInt8]? {
        // Base64 never decodes to more bytes than 3/4 of its length.
        let capacity = text.count / 4 * 3 + 3
        var output = [UInt8](repeating: 0, count: capacity)
        var length = 0
        let status = text.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { characters in
                ignoring.withCString { ignored in
                    // b64_end nil: libsodium fails on any unparsable character instead of stopping there.
                    sodium_base642bin(
                        &output, capacity, characters.baseAddress, characters.count, ignoring.isEmpty ? nil : ignored,
                        &length, nil, sodium_base64_VARIANT_ORIGINAL)
                }
            }
        }
        guard status == 0, length <= capacity else { return nil }
        return Array(output.prefix(length))
    }
}
