/// The first bytes a client sends in a `CONNECT` tunnel, read as a TLS ClientHello to learn
/// the server name (SNI) it asks for — without any cryptography, as Squid's `ssl_bump peek`.
///
/// The input comes from a hostile client: every read is bounds-checked, the whole message is
/// capped at ``maxBytes``, and anything that is not a well-formed ClientHello (plain HTTP, a
/// truncated or inconsistent length, a second `server_name`, a `server_name` list with anything
/// but one `host_name`) is ``Reading/invalid(_:)``: the
/// tunnel refuses what it cannot read instead of passing it on (RFC 8446 §4.1.2, RFC 6066 §3).
public enum ClientHello {
    /// What the bytes received so far say.
    public enum Reading: Equatable, Sendable {
        /// A prefix of a possibly valid ClientHello: read more (within the deadline).
        case needMore
        /// A complete ClientHello; `serverName` is its `host_name` (nil: no SNI extension),
        /// as sent (A-labels, any case). `length` is how many bytes it took (the records).
        case complete(serverName: String?, length: Int)
        /// Not a ClientHello this tunnel carries; the reason is for the log.
        case invalid(String)
    }

    /// The most bytes a ClientHello may take, records included: a real one is under 2 KiB
    /// (post-quantum key shares bring Chromium's to about 1.8 KiB); 16 KiB leaves room for
    /// large session tickets and padding while bounding what a client can make us buffer.
    public static let maxBytes = 16 * 1024

    /// Reads `bytes`, everything the client sent so far.
    public static func read(_ bytes: some Collection<UInt8>) -> Reading {
        read(Array(bytes))
    }

    /// ``read(_:)`` on an array.
    public static func read(_ bytes: [UInt8]) -> Reading {
        // Checked on the first byte: plain bytes are refused before a record header is complete.
        if let first = bytes.first, first != 0x16 { return .invalid("not a TLS handshake record") }
        // The message's own header sits in the first record: a hello announcing more than the
        // cap (or another message) is refused on its first 9 bytes, not after the client sent them all.
        // (Only when the first record holds those 4 bytes: a header split over records is legal.)
        if bytes.count >= 9, Cursor(bytes, from: 0, count: 5).uint16(3) >= 4 {
            let start = Cursor(bytes, from: 5, count: 4)
            guard start.byte(0) == 0x01 else { return .invalid("the first handshake message is not a ClientHello") }
            guard (start.byte(1) << 16 | start.uint16(2)) + 4 <= maxBytes else { return .invalid("too large") }
        }
        var handshake: [UInt8] = []
        var offset = 0
        while true {
            guard bytes.count - offset >= 5 else { return bytes.count >= maxBytes ? .invalid("too large") : .needMore }
            let header = Cursor(bytes, from: offset, count: 5)
            guard header.byte(0) == 0x16 else { return .invalid("a non-handshake record inside the ClientHello") }
            guard header.byte(1) == 0x03, header.byte(2) <= 0x04 else { return .invalid("not a TLS record version") }
            let length = header.uint16(3)
            // RFC 8446 §5.1: a record holds at most 2^14 bytes; handshake records are never empty.
            guard length > 0, length <= 16_384 else { return .invalid("a record length out of range") }
            guard offset + 5 + length <= maxBytes else { return .invalid("too large") }
            guard bytes.count - offset - 5 >= length else { return .needMore }
            handshake.append(contentsOf: bytes[(offset + 5)..<(offset + 5 + length)])
            offset += 5 + length
            guard handshake.count >= 4 else { continue }
            let head = Cursor(handshake, from: 0, count: 4)
            guard head.byte(0) == 0x01 else { return .invalid("the first handshake message is not a ClientHello") }
            let messageLength = head.byte(1) << 16 | head.byte(2) << 8 | head.byte(3)
            guard messageLength + 4 <= maxBytes else { return .invalid("too large") }
            guard handshake.count >= messageLength + 4 else { continue }
            // A ClientHello ends its record: bytes of another message in the same records would
            // be something this parser did not read (RFC 8446 §5.1 forbids spanning a key change).
            guard handshake.count == messageLength + 4 else { return .invalid("bytes after the ClientHello") }
            switch serverName(in: Cursor(handshake, from: 4, count: messageLength)) {
            case .success(let name): return .complete(serverName: name, length: offset)
            case .failure(let failure): return .invalid(failure.reason)
            }
        }
    }

    /// Why a ClientHello body was refused.
    struct Malformed: Error {
        let reason: String
    }

    /// The `host_name` of the body's `server_name` extension, nil without one.
    private static func serverName(in body: Cursor) -> Result<String?, Malformed> {
        var body = body
        guard body.skip(2 + 32),  // legacy_version, random
            body.skipVector(lengthBytes: 1, max: 32),  // legacy_session_id
            let suites = body.vector(lengthBytes: 2), suites.remaining.count >= 2, suites.remaining.count % 2 == 0,
            let compression = body.vector(lengthBytes: 1), !compression.isAtEnd
        else { return .failure(Malformed(reason: "a truncated or malformed ClientHello")) }
        // TLS 1.0–1.2 allow a ClientHello without extensions: then there is no server name.
        guard !body.isAtEnd else { return .success(nil) }
        guard var extensions = body.vector(lengthBytes: 2), body.isAtEnd else {
            return .failure(Malformed(reason: "malformed extensions"))
        }
        var found: String?
        var seen = false
        while !extensions.isAtEnd {
            guard let type = extensions.uint16(), var data = extensions.vector(lengthBytes: 2) else {
                return .failure(Malformed(reason: "a truncated extension"))
            }
            // An encrypted_client_hello extension (0xfe0d) is let through: Chromium sends a GREASE
            // one in every ClientHello, which cannot be told from a real one without the key. With
            // real ECH this name is only the outer one (docs/proxy.md, what a tunnel cannot enforce).
            guard type == 0x0000 else { continue }
            // Two server_name extensions could be read differently by the origin (RFC 8446 §4.2).
            guard !seen else { return .failure(Malformed(reason: "two server_name extensions")) }
            seen = true
            guard var names = data.vector(lengthBytes: 2), data.isAtEnd, !names.isAtEnd else {
                return .failure(Malformed(reason: "a malformed server_name extension"))
            }
            while !names.isAtEnd {
                guard let nameType = names.uint8(), let name = names.vector(lengthBytes: 2) else {
                    return .failure(Malformed(reason: "a malformed server_name entry"))
                }
                // host_name (0) is the only type there is (RFC 6066 §3): an origin reading another
                // entry's name as the host would read what nobody decided, so such a list is
                // refused, not skipped (OpenSSL refuses it too).
                guard nameType == 0 else {
                    return .failure(Malformed(reason: "a server_name entry of type \(nameType), not host_name"))
                }
                // RFC 6066 §3: one name per type; a second could be what the origin reads.
                guard found == nil else { return .failure(Malformed(reason: "two host_name entries")) }
                guard let text = hostName(name.remaining) else {
                    return .failure(Malformed(reason: "a host_name that is not an ASCII host name"))
                }
                found = text
            }
            guard found != nil else { return .failure(Malformed(reason: "a server_name without a host_name")) }
        }
        return .success(found)
    }

    /// The name as text when it is 1–253 bytes of letters, digits, `-`, `_` and `.`
    /// (A-labels: RFC 6066 says the name is ASCII, without a trailing dot).
    private static func hostName(_ bytes: ArraySlice<UInt8>) -> String? {
        guard !bytes.isEmpty, bytes.count <= 253 else { return nil }
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F
        }
        return allowed ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
