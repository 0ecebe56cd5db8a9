/// The body of a ServerHello handshake message from the origin, read strictly enough to say
/// whether it is a HelloRetryRequest (RFC 8446 §4.1.3–4.1.4) and whether it must end its record.
///
/// Why strictly: the client reads the same bytes. A message whose lengths do not add up could be
/// read by a (colluding) client as something else than the proxy read — a retry where the proxy
/// saw a ServerHello — and a third ClientHello would then follow unread. So every field's
/// length must fit exactly, and anything else is ``Reading/malformed(_:)`` (the tunnel closes).
enum ServerHello {
    /// What the body says.
    enum Reading: Equatable {
        /// A HelloRetryRequest: `random` is ``HelloRetry/random``.
        case retry
        /// A ServerHello that is no retry. `endsRecord`: it negotiates TLS 1.3 (it has a
        /// `supported_versions` extension), so nothing may follow it in its record (RFC 8446 §5.1:
        /// the handshake keys change after it); a TLS 1.2 one may be followed by the rest of the
        /// server's flight.
        case serverHello(endsRecord: Bool)
        /// Not a ServerHello this tunnel passes on; the reason is for the log.
        case malformed(String)
    }

    /// `supported_versions` (RFC 8446 §4.2.1): only TLS 1.3 servers send it.
    private static let supportedVersions = 0x002B

    /// Reads a ServerHello's body (after its 4-byte handshake header):
    /// `legacy_version`, `random`, `legacy_session_id_echo<0..32>`, `cipher_suite`,
    /// `legacy_compression_method`, then extensions (optional only before TLS 1.3).
    static func read(_ body: [UInt8]) -> Reading {
        var cursor = Cursor(body, from: 0, count: body.count)
        guard let version = cursor.uint16(), (0x0300...0x0303).contains(version) else {
            return .malformed("a ServerHello with a legacy_version out of range")
        }
        guard cursor.skip(32) else { return .malformed("a truncated ServerHello") }
        let isRetry = body[2..<34].elementsEqual(HelloRetry.random)
        guard cursor.skipVector(lengthBytes: 1, max: 32), cursor.skip(2), let compression = cursor.uint8() else {
            return .malformed("a truncated or malformed ServerHello")
        }
        // TLS 1.0–1.2 allow a ServerHello without extensions; a retry always has them (§4.1.4).
        guard !cursor.isAtEnd else {
            return isRetry ? .malformed("a HelloRetryRequest without extensions") : .serverHello(endsRecord: false)
        }
        guard var extensions = cursor.vector(lengthBytes: 2), cursor.isAtEnd else {
            return .malformed("a ServerHello whose extensions do not end it")
        }
        var seen: Set<Int> = []
        var selectedVersion: Int?
        while !extensions.isAtEnd {
            guard let type = extensions.uint16(), var data = extensions.vector(lengthBytes: 2) else {
                return .malformed("a truncated ServerHello extension")
            }
            // RFC 8446 §4.2: one extension of a type per block; two could be read either way.
            guard seen.insert(type).inserted else { return .malformed("two ServerHello extensions of type \(type)") }
            if type == supportedVersions {
                guard let selected = data.uint16(), data.isAtEnd else {
                    return .malformed("a malformed supported_versions extension")
                }
                selectedVersion = selected
            }
        }
        if let selectedVersion {
            // TLS 1.3 fixes these (RFC 8446 §4.1.3): what else would be some other protocol.
            guard version == 0x0303, compression == 0, selectedVersion == 0x0304 else {
                return .malformed("a TLS 1.3 ServerHello with legacy fields of another version")
            }
            return isRetry ? .retry : .serverHello(endsRecord: true)
        }
        return isRetry ? .malformed("a HelloRetryRequest without supported_versions") : .serverHello(endsRecord: false)
    }
}
