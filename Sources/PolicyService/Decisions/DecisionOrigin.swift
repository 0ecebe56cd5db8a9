import NetworkSockets

/// Where a decision was asked for, as its decision-log line records it: the front end, the
/// client address that front end saw, and Envoy's request id. A mesh joins its own access
/// logs on these (docs/operations.md, "Decision log").
struct DecisionOrigin: Sendable {
    /// The front end that decided (`frontend`).
    var frontEnd: DecisionFrontEnd
    /// The client's address as the front end saw it (`clientAddress`): the TCP peer for the
    /// API, the proxy and intake (for `/v1/authz` that is the nginx in front); what Envoy
    /// reports for ext_authz. Empty when unknown (logged as null).
    var clientAddress: String
    /// Envoy's `x-request-id` (`requestId`), already checked by ``requestID(_:)``; nil when
    /// absent or refused.
    var requestID: String?

    init(_ frontEnd: DecisionFrontEnd, clientAddress: String, requestID: String? = nil) {
        self.frontEnd = frontEnd
        self.clientAddress = clientAddress
        self.requestID = requestID
    }

    /// The longest request id logged. Envoy's are UUIDs (36 bytes); a client behind an
    /// internal Envoy can choose its own, so the field is bounded like every part of a line.
    static let maximumRequestIDBytes = 128

    /// `raw` when it may go into a log line as a request id: 1 to ``maximumRequestIDBytes``
    /// bytes of visible ASCII (`!` to `~`). Anything else — a control byte, a space, a quote
    /// or backslash that would need escaping, non-ASCII, too long — is refused (nil), not cut
    /// or escaped: an id that is not Envoy's spelling joins nothing, and refusing it keeps
    /// every line's request id short and plain.
    static func requestID(_ raw: String?) -> String? {
        guard let raw, !raw.isEmpty, raw.utf8.count <= maximumRequestIDBytes else { return nil }
        let plain = raw.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        return plain ? raw : nil
    }

    /// The longest client address logged: an IPv6 address with a zone, as text.
    static let maximumAddressBytes = 64

    /// `raw` when it reads as an address (hex digits, `.`, `:`, `%` and a zone's letters,
    /// at most ``maximumAddressBytes``), else empty: for an address a client could have put
    /// in a field (the last `X-Forwarded-For` entry, a CheckRequest from a non-Envoy client).
    static func address(_ raw: Substring) -> String {
        let text = raw.trimmingBlanks
        guard !text.isEmpty, text.utf8.count <= maximumAddressBytes, text.utf8.allSatisfy(isAddressByte) else { return "" }
        // Parsed, not only character-checked (attack round 8, F7): `localhost`, `0x7f.1`,
        // `1.2.3.4:80` and run-together IPv6 texts are not an address. A zone (`%eth0`) follows
        // an IPv6 address only.
        let parts = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(numeric: String(parts[0])) else { return "" }
        if parts.count == 2 && (parts[1].isEmpty || address.bytes.count != 16) { return "" }
        return String(text)
    }

    /// A byte an address's text may hold: digits, `:`, letters (hex digits, a zone name), `.`,
    /// `%` (before a zone) and the brackets of an IPv6 literal.
    private static func isAddressByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: ":") { return true }
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z") { return true }
        return byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "[")
            || byte == UInt8(ascii: "]")
    }

    /// The address the edge Envoy appended to `X-Forwarded-For` (`use_remote_address: true`
    /// appends the TCP peer it saw as the last entry): the last entry of the last field. The
    /// entries before it are the client's to choose and are never read. Empty when absent.
    static func lastForwardedFor(_ fields: [String]) -> String {
        // The last comma found by bytes: split as `Character`s, a field of one long run of
        // combining marks was one `Character` whose every comparison normalized it (outside
        // attack 15, F6: 75 ms for a 16 KiB field).
        guard let last = fields.last else { return "" }
        let bytes = last.utf8
        let start = bytes.lastIndex(of: UInt8(ascii: ",")).map { bytes.index(after: $0) } ?? bytes.startIndex
        return address(Substring(last.utf8[start...]))
    }
}
