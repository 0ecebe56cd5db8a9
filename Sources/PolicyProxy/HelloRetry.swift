/// TLS 1.3's HelloRetryRequest (RFC 8446 §4.1.3–4.1.4): a ServerHello whose `random` is one
/// fixed value asks the client for a second ClientHello. The origin reads the server name of
/// that second hello, so the tunnel must hold it to the CONNECT host as it did the first: a
/// client could otherwise offer a key share the origin refuses, and name a blocked host the
/// second time (the third outside attack reached one this way).
public enum HelloRetry {
    /// SHA-256 of "HelloRetryRequest" (RFC 8446 §4.1.3).
    static let random: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// A record header (5), the ServerHello's handshake header (4), `legacy_version` (2), `random` (32).
    static let bytesNeeded = 43

    /// What the origin's first bytes say.
    public enum Reading: Equatable, Sendable {
        case needMore
        /// A HelloRetryRequest: the client's next ClientHello must be checked too.
        case retry
        /// Anything else (a ServerHello, an alert): the handshake goes on with the first hello.
        case other
        /// A ServerHello whose `random` is not in its first record: it cannot be told whether it
        /// asks for a retry, so the tunnel is closed (fail closed; servers do not split it).
        case undecidable
    }

    /// Reads the origin's first bytes.
    public static func read(_ bytes: [UInt8]) -> Reading {
        guard let first = bytes.first else { return .needMore }
        guard first == 0x16 else { return .other }
        guard bytes.count >= 6 else { return .needMore }
        guard bytes[5] == 0x02 else { return .other }
        // The first record must hold the ServerHello's header, version and random.
        let recordLength = Int(bytes[3]) << 8 | Int(bytes[4])
        guard recordLength >= bytesNeeded - 5 else { return .undecidable }
        guard bytes.count >= bytesNeeded else { return .needMore }
        return bytes[11..<bytesNeeded].elementsEqual(random) ? .retry : .other
    }
}
