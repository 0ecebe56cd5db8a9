/// The origin's answer to a ClientHello, read far enough to know what the tunnel does next.
///
/// TLS 1.3's HelloRetryRequest (RFC 8446 §4.1.3–4.1.4), a ServerHello whose `random` is one
/// fixed value, asks the client for a second ClientHello. The origin reads the server name of
/// that second hello, so the tunnel must hold it to the CONNECT host as it did the first: a
/// client could otherwise offer a key share the origin refuses, and name a blocked host the
/// second time (the third outside attack reached one this way). A scripted origin can also
/// answer first with something else (an alert, a TLS 1.2 HelloRequest) and only then with the
/// retry: so the answer must be a ServerHello, an alert (which ends the tunnel), or the tunnel
/// is closed before the client's next bytes reach the origin (issue 38, item F3).
///
/// Every handshake message of the answer is read, reassembled across records, up to the end of
/// the record that ends the ServerHello — where the tunnel decides. Reading only the first
/// message of the first record let a colluding origin and client pass a third ClientHello
/// (naming any host) unread: two retries in one record, a ServerHello and a retry in one record,
/// or a retry split over records whose second record the proxy took for the next answer. So:
/// a ServerHello is a retry exactly when its `random` is the retry's; a retry must end its
/// record (the client answers it before anything else can come); a TLS 1.3 ServerHello must too
/// (RFC 8446 §5.1), a TLS 1.2 one may be followed in its record only by the rest of the server's
/// flight; and the ServerHello's own framing must add up (``ServerHello``).
public enum HelloRetry {
    /// SHA-256 of "HelloRetryRequest" (RFC 8446 §4.1.3).
    static let random: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// The ChangeCipherSpec record a TLS 1.3 server may send after its HelloRetryRequest
    /// (RFC 8446 §D.4): the one record allowed before its answer to the second ClientHello.
    static let changeCipherSpec: [UInt8] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01]

    /// The largest ServerHello (or retry) message read, header included: real ones are under
    /// 200 bytes, a retry's cookie can add a few KiB.
    public static let maxMessageBytes = 16 * 1024

    /// The most bytes of an answer read before it is told: the ChangeCipherSpec and two full
    /// records (a ServerHello with the start of a TLS 1.2 flight, or a retry split over two).
    public static let maxBytes = changeCipherSpec.count + 2 * (5 + 16_384)

    /// What the origin's bytes since the last ClientHello say.
    public enum Reading: Equatable, Sendable {
        case needMore
        /// A HelloRetryRequest: the client's next ClientHello must be checked too. `length`:
        /// the bytes up to the end of the record it ends (passed to the client; the rest is the
        /// start of the next answer).
        case retry(length: Int)
        /// A ServerHello that is no retry: the handshake goes on, the relay may start.
        case serverHello
        /// An alert record (`length` bytes with what came before it): the origin ends the
        /// handshake; the tunnel passes it to the client and closes.
        case alert(length: Int)
        /// Anything else before a ServerHello (another handshake message, application data, a
        /// malformed record or ServerHello, a message after a retry in its record): the tunnel
        /// closes. The reason is for the log.
        case invalid(String)
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
        return answer(bytes, from: start)
    }

    /// The records of `bytes` from `start` until the one that ends the ServerHello.
    private static func answer(_ bytes: [UInt8], from start: Int) -> Reading {
        var offset = start
        // The handshake bytes of the whole records read so far (they end at a record's end).
        var handshake: [UInt8] = []
        while true {
            guard offset < bytes.count else { return .needMore }
            let type = bytes[offset]
            guard type == 0x16 || type == 0x15 else {
                return .invalid("a record of type \(type) before the ServerHello")
            }
            guard bytes.count - offset >= 5 else { return .needMore }
            guard bytes[offset + 1] == 0x03, bytes[offset + 2] <= 0x04 else { return .invalid("not a TLS record version") }
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            guard length > 0, length <= 16_384 else { return .invalid("a record length out of range") }
            let body = offset + 5
            if type == 0x15 {
                guard handshake.isEmpty else { return .invalid("an alert record inside the ServerHello") }
                // A plaintext alert is two bytes (RFC 8446 §6): anything else is not one to pass on.
                guard length == 2 else { return .invalid("an alert record of \(length) bytes") }
                return bytes.count >= body + 2 ? .alert(length: body + 2) : .needMore
            }
            guard body + length <= maxBytes else { return .invalid("more than \(maxBytes) bytes before the ServerHello ended") }
            // Anything but a ServerHello first is refused on its first byte, not once whole.
            if handshake.isEmpty, bytes.count > body, bytes[body] != 0x02 {
                return .invalid("a handshake message of type \(bytes[body]) before the ServerHello")
            }
            guard bytes.count >= body + length else { return .needMore }
            handshake += bytes[body..<(body + length)]
            offset = body + length
            switch tell(handshake) {
            case .needMore: continue
            case .retry: return .retry(length: offset)
            case .serverHello: return .serverHello
            case .invalid(let reason): return .invalid(reason)
            }
        }
    }

    private enum Told {
        case needMore
        case retry
        case serverHello
        case invalid(String)
    }

    /// What the handshake bytes of whole records say: a ServerHello whose record ended, or not yet.
    private static func tell(_ handshake: [UInt8]) -> Told {
        guard handshake.count >= 4 else { return .needMore }
        let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
        guard 4 + length <= maxMessageBytes else { return .invalid("a ServerHello of \(length) bytes") }
        guard handshake.count >= 4 + length else { return .needMore }
        let rest = handshake[(4 + length)...]
        switch ServerHello.read(Array(handshake[4..<(4 + length)])) {
        case .malformed(let reason):
            return .invalid(reason)
        case .retry:
            // The client answers a retry before the origin may send anything more: a second
            // retry or a ServerHello after it would be read by one side and not the other.
            return rest.isEmpty ? .retry : .invalid("\(rest.count) bytes after the HelloRetryRequest in its record")
        case .serverHello(endsRecord: true):
            return rest.isEmpty ? .serverHello : .invalid("\(rest.count) bytes after a TLS 1.3 ServerHello in its record")
        case .serverHello(endsRecord: false):
            return flight(rest)
        }
    }

    /// TLS 1.2 messages a server's flight may hold after its ServerHello (RFC 5246 §7.3,
    /// RFC 5077 §3.3, RFC 6066 §8, RFC 4680): new_session_ticket, certificate,
    /// server_key_exchange, certificate_request, server_hello_done, certificate_status,
    /// supplemental_data — never another hello.
    private static let flightAfterServerHello: Set<UInt8> = [4, 11, 12, 13, 14, 22, 23]

    /// The rest of a TLS 1.2 ServerHello's record: each message starting there is one of the
    /// flight's (the last may go on in later records, which the relay passes unread).
    private static func flight(_ rest: ArraySlice<UInt8>) -> Told {
        var at = rest.startIndex
        while at < rest.endIndex {
            guard flightAfterServerHello.contains(rest[at]) else {
                return .invalid("a handshake message of type \(rest[at]) after the ServerHello in its record")
            }
            guard rest.endIndex - at >= 4 else { break }
            at += 4 + (Int(rest[at + 1]) << 16 | Int(rest[at + 2]) << 8 | Int(rest[at + 3]))
        }
        return .serverHello
    }
}
