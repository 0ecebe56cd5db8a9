/// The origin's answer to a ClientHello, read far enough to know what the tunnel does next.
///
/// TLS 1.3's HelloRetryRequest (RFC 8446 §4.1.3–4.1.4), a ServerHello whose `random` is one
/// fixed value, asks the client for a second ClientHello. The origin reads the server name of
/// that second hello, so the tunnel must hold it to the CONNECT host as it did the first: a
/// client could otherwise offer a key share the origin refuses, and name a blocked host the
/// second time (the third outside attack reached one this way). A scripted origin can also
/// answer first with something else (an alert, a TLS 1.2 HelloRequest) and only then with the
/// retry: so the answer must be a handshake record whose first message is a ServerHello, an
/// alert (which ends the tunnel), or the tunnel is closed before the client's next bytes reach
/// the origin (issue 38, item F3).
public enum HelloRetry {
    /// SHA-256 of "HelloRetryRequest" (RFC 8446 §4.1.3).
    static let random: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// A record header (5), the ServerHello's handshake header (4), `legacy_version` (2), `random` (32).
    static let bytesNeeded = 43

    /// The ChangeCipherSpec record a TLS 1.3 server may send after its HelloRetryRequest
    /// (RFC 8446 §D.4): the one record allowed before its answer to the second ClientHello.
    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]

    /// What the origin's bytes since the last ClientHello say.
    public enum Reading: Equatable, Sendable {
        case needMore
        /// A HelloRetryRequest: the client's next ClientHello must be checked too. `length`:
        /// the bytes up to the end of its record (passed to the client; the rest is the start
        /// of the next answer).
        case retry(length: Int)
        /// A ServerHello that is no retry: the handshake goes on, the relay may start.
        case serverHello
        /// An alert record (`length` bytes with what came before it): the origin ends the
        /// handshake; the tunnel passes it to the client and closes.
        case alert(length: Int)
        /// Anything else before a ServerHello (another handshake message, application data, a
        /// malformed record): the tunnel closes. The reason is for the log.
        case invalid(String)
        /// A ServerHello whose `random` is not in its first record: it cannot be told whether it
        /// asks for a retry, so the tunnel is closed (fail closed; servers do not split it).
        case undecidable
    }

    /// Reads the origin's bytes since a ClientHello was passed on. `afterRetry`: the answer to
    /// a second ClientHello, which may start with the one ChangeCipherSpec record of
    /// ``changeCipherSpec`` (sent after the HelloRetryRequest).
    public static func read(_ bytes: [UInt8], afterRetry: Bool = false) -> Reading {
        var start = 0
        if afterRetry, bytes.first == changeCipherSpec[0] {
            for (index, byte) in bytes.prefix(changeCipherSpec.count).enumerated() where byte != changeCipherSpec[index] {
                return .invalid("a malformed ChangeCipherSpec record after the HelloRetryRequest")
            }
            guard bytes.count > changeCipherSpec.count else { return .needMore }
            start = changeCipherSpec.count
        }
        return answer(bytes[start...], before: start)
    }

    /// The first record of `bytes` (which start `before` bytes into the answer).
    private static func answer(_ bytes: ArraySlice<UInt8>, before: Int) -> Reading {
        let bytes = Array(bytes)
        guard let type = bytes.first else { return .needMore }
        guard type == 0x16 || type == 0x15 else {
            return .invalid("a record of type \(type) before the ServerHello")
        }
        guard bytes.count >= 5 else { return .needMore }
        guard bytes[1] == 0x03, bytes[2] <= 0x04 else { return .invalid("not a TLS record version") }
        let recordLength = Int(bytes[3]) << 8 | Int(bytes[4])
        guard recordLength > 0, recordLength <= 16_384 else { return .invalid("a record length out of range") }
        if type == 0x15 {
            // A plaintext alert is two bytes (RFC 8446 §6): anything else is not one to pass on.
            guard recordLength == 2 else { return .invalid("an alert record of \(recordLength) bytes") }
            return bytes.count >= 7 ? .alert(length: before + 7) : .needMore
        }
        guard bytes.count >= 6 else { return .needMore }
        guard bytes[5] == 0x02 else {
            return .invalid("a handshake message of type \(bytes[5]) before the ServerHello")
        }
        // The first record must hold the ServerHello's header, version and random.
        guard recordLength >= bytesNeeded - 5 else { return .undecidable }
        guard bytes.count >= bytesNeeded else { return .needMore }
        guard bytes[11..<bytesNeeded].elementsEqual(random) else { return .serverHello }
        // The retry's whole record goes to the client; what follows is the next answer's.
        return bytes.count >= 5 + recordLength ? .retry(length: before + 5 + recordLength) : .needMore
    }
}
