/// Checks on the request line and header section that libmicrohttpd 0.9.75 does not make.
///
/// MHD accepts both Content-Length and Transfer-Encoding, duplicate Host headers and
/// HTTP/1.1 without Host; each is a request-smuggling or cache-poisoning vector behind a
/// proxy (RFC 9112 §3.2, §6.1), so they are rejected here before the responder runs.
///
/// MHD also accepts field lines a strict parser must refuse (RFC 9112 §2.2, §5.1, §5.2;
/// RFC 9110 §5.1, §5.5): a bare CR inside a value, whitespace before the colon (it becomes
/// part of the name), a whitespace-led first field line (likewise), obs-fold (MHD appends
/// the continuation to the *name*, in a copy elsewhere in its pool) and NUL bytes (MHD
/// measures values with `strlen`, so everything after the NUL silently disappears). The
/// field checks below see what MHD reports; ``HeaderSectionLayout`` finds what it hid.
package struct RequestHeadValidation: Sendable {
    let maxTargetBytes: Int
    let maxHeaderBytes: Int
    /// Whether `CONNECT` is handed to the responder (a tunnelling proxy) instead of refused.
    let acceptsConnect: Bool

    /// Creates the checks with the server's limits on the target and the header section.
    package init(maxTargetBytes: Int, maxHeaderBytes: Int, acceptsConnect: Bool = false) {
        self.maxTargetBytes = maxTargetBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.acceptsConnect = acceptsConnect
    }

    /// Validates a request head and returns its declared Content-Length (nil when absent).
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - target: the target's bytes as on the request line.
    ///   - httpVersion: "HTTP/1.1" or "HTTP/1.0".
    ///   - headers: the header fields in order.
    ///   - headerBytes: size of the header section (`name: value\r\n` per field).
    ///   - fieldSyntax: the first field-line violation found while the fields were collected.
    /// - Throws: the first violated rule as a problem.
    package func validate(
        method: String, target: [UInt8], httpVersion: String, headers: HTTPHeaders, headerBytes: Int,
        fieldSyntax: FieldSyntaxViolation? = nil
    ) throws(ProblemDetails) -> Int? {
        try validate(
            method: method, target: target, httpVersion: httpVersion, framing: FramingFields(headers),
            headerBytes: headerBytes, fieldSyntax: fieldSyntax)
    }

    /// ``validate(method:target:httpVersion:headers:headerBytes:fieldSyntax:)`` with the
    /// framing facts the server gathered while it collected the fields.
    func validate(
        method: String, target: [UInt8], httpVersion: String, framing fields: FramingFields, headerBytes: Int,
        fieldSyntax: FieldSyntaxViolation?
    ) throws(ProblemDetails) -> Int? {
        guard Self.isToken(method) else { throw Self.invalidMethod }
        guard target.withUnsafeBufferPointer({ Self.isRequestTarget($0) }) else { throw Self.invalidRequestTarget }
        if let fieldSyntax { throw fieldSyntax.problem }
        // MHD 0.9.75 cannot tunnel: it would send a 200 without framing and keep the socket.
        // A tunnelling responder takes the socket over itself (HTTPResponderResult.takeOver).
        if method == "CONNECT" && !acceptsConnect { throw Self.connectNotSupported }
        if target.count > maxTargetBytes { throw .uriTooLong(limit: maxTargetBytes) }
        if headerBytes > maxHeaderBytes { throw .headerFieldsTooLarge(limit: maxHeaderBytes) }

        let hosts = fields.hosts
        if hosts > 1 {
            throw .badRequest(
                kind: "duplicate-host", detail: "The request has \(hosts) Host header fields; exactly one is allowed.")
        }
        if hosts == 0 && httpVersion == "HTTP/1.1" { throw Self.missingHost }

        let contentLengths = fields.contentLengths
        let transferEncodings = fields.transferEncodings
        if !contentLengths.isEmpty && !transferEncodings.isEmpty { throw Self.conflictingFraming }
        if !transferEncodings.isEmpty {
            guard Self.isChunkedOnly(transferEncodings) else { throw Self.unsupportedTransferEncoding }
            return nil
        }
        return try declaredLength(contentLengths)
    }

    /// ``validate(method:target:httpVersion:headers:headerBytes:fieldSyntax:)`` with the target
    /// as text (its UTF-8 bytes are checked).
    package func validate(
        method: String, rawTarget: String, httpVersion: String, headers: HTTPHeaders, headerBytes: Int,
        fieldSyntax: FieldSyntaxViolation? = nil
    ) throws(ProblemDetails) -> Int? {
        try validate(
            method: method, target: Array(rawTarget.utf8), httpVersion: httpVersion, headers: headers,
            headerBytes: headerBytes, fieldSyntax: fieldSyntax)
    }

    static let invalidMethod = ProblemDetails.badRequest(
        kind: "invalid-method", detail: "The request method must be a token (RFC 9110 §9.1).")
    static let invalidRequestTarget = ProblemDetails.badRequest(
        kind: "invalid-request-target",
        detail: "The request target must not be empty or contain whitespace or control characters.")
    static let connectNotSupported = ProblemDetails(
        kind: "connect-not-supported", title: "Not implemented", status: 501,
        detail:
            "HTTPS tunnelling (CONNECT) is not supported by this mode: libmicrohttpd 0.9.75 cannot tunnel. "
            + "For HTTPS sites use navpolicyd as a reverse proxy (proxy.upstream + proxy.publicOrigin, TLS "
            + "ending in front of it) or nginx auth_request with GET /v1/authz.")
    static let missingHost = ProblemDetails.badRequest(
        kind: "missing-host", detail: "An HTTP/1.1 request must have a Host header field.")
    static let conflictingFraming = ProblemDetails.badRequest(
        kind: "conflicting-framing", detail: "The request has both Content-Length and Transfer-Encoding; send only one.")
    static let unsupportedTransferEncoding = ProblemDetails(
        kind: "unsupported-transfer-encoding", title: "Not implemented", status: 501,
        detail: "Only Transfer-Encoding: chunked is supported.")

    /// Every rejection of these checks whose bytes are the same for every request (the
    /// server builds them once): all but the duplicate-Host count.
    var fixedProblems: [ProblemDetails] {
        [
            Self.invalidMethod, Self.invalidRequestTarget, Self.connectNotSupported, Self.missingHost,
            Self.conflictingFraming, Self.unsupportedTransferEncoding, .invalidContentLength,
            .uriTooLong(limit: maxTargetBytes), .headerFieldsTooLarge(limit: maxHeaderBytes),
            FieldSyntaxViolation.invalidName.problem, FieldSyntaxViolation.invalidValue.problem,
            FieldSyntaxViolation.unaccountedBytes.problem,
        ]
    }

    /// Parses Content-Length; repeated fields or list members must all agree (RFC 9110 §8.6).
    private func declaredLength(_ fields: [String]) throws(ProblemDetails) -> Int? {
        guard !fields.isEmpty else { return nil }
        // The common case, one field of digits only, needs no splitting or trimming.
        if fields.count == 1, let only = fields.first, !only.isEmpty, only.utf8.count <= 18,
            only.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(only)
        {
            return length
        }
        let members = fields.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false).map { trimmed($0) }
        guard let first = members.first, members.allSatisfy({ $0 == first }),
            !first.isEmpty, first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int(first)
        else {
            throw .invalidContentLength
        }
        return length
    }

    /// Whether the `Transfer-Encoding` field is exactly `chunked` (ASCII case-insensitive): one
    /// field, no other list member, no whitespace left around it, which is what libmicrohttpd
    /// 0.9.75 reads a chunked body for. It reads `chunked,` or `chunked ` as no framing at all and
    /// waits for a body until the slow-body cut, closing without an answer (outside attack 17,
    /// F1), so those are refused here as unsupported. By bytes: split and lower-cased as
    /// `Character`s, a value of combining marks cost the square of its length (outside attack 16,
    /// F5), and Unicode lower-casing read `chun\u{212A}ed` (KELVIN SIGN) as `chunked`.
    static func isChunkedOnly(_ values: [String]) -> Bool {
        guard values.count == 1, var value = values.first else { return false }
        return value.withUTF8 { ASCIICaseInsensitive.equal(UnsafeRawBufferPointer($0), lowercase: "chunked") }
    }

    /// Drops optional whitespace (SP, HTAB) at both ends, byte by byte: going through
    /// `Character`s (grapheme breaking) and `reversed()` cost ~10% of a POST's CPU.
    private func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { bytes.formIndex(after: &start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return String(text[start..<end])
    }

    /// Whether `bytes` is a non-empty token (RFC 9110 §5.6.2): field names and methods.
    @inline(__always)
    package static func isToken(_ bytes: some Sequence<UInt8>) -> Bool { FieldSyntax.isToken(bytes) }

    /// Whether `bytes` may be a field value (RFC 9110 §5.5).
    @inline(__always)
    package static func isFieldValue(_ bytes: some Sequence<UInt8>) -> Bool { FieldSyntax.isFieldValue(bytes) }

    /// Whether `method` is a token, checked over its contiguous UTF-8 (interned methods are
    /// literals, so this borrows their storage): iterating the `UTF8View` generically cost
    /// several instructions per byte more on every request.
    static func isToken(_ method: String) -> Bool {
        var method = method
        return method.withUTF8 { FieldSyntax.isToken($0) }
    }

    /// Whether `bytes` may be a request target as libmicrohttpd split it off the request
    /// line: not empty, no whitespace (a space means a second space-separated part that
    /// MHD folded into the target), no control characters.
    ///
    /// Eight bytes at a time: the generic `Sequence` version walked a `UTF8View` at ≈ 34
    /// instructions per byte, a byte loop ≈ 12 (≈ 650 for a decide target), the word test ≈ 2.
    static func isRequestTarget(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        // Whole words only: `offset + 8 <= raw.count` keeps every load inside the buffer.
        while offset + 8 <= raw.count {
            if hasForbiddenTargetByte(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return false }
            offset += 8
        }
        while offset < raw.count {
            let byte = raw[offset]
            if byte <= 0x20 || byte == 0x7F { return false }
            offset += 1
        }
        return true
    }

    /// Whether any of the eight bytes of `word` is ≤ 0x20 or is 0x7F. The classic
    /// "has a byte less than n" test (exact as a yes/no for n ≤ 128: a high bit is set in the
    /// result only for a byte below n, or above one, where a borrow came from), once for
    /// < 0x21 and once for == 0x7F (a zero byte of `word ^ 0x7F…`); bytes ≥ 0x80 never match.
    @inline(__always)
    static func hasForbiddenTargetByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x21) & ~word & highBits
        let delete = word ^ (ones &* 0x7F)
        let isDelete = (delete &- ones) & ~delete & highBits
        return (belowSpace | isDelete) != 0
    }
}

/// The fields the head checks look at, gathered while the fields are collected.
///
/// Three lookups (`count(of: .host)`, `values(for:)` twice) walked every field three times
/// and compared each name (≈ 600 instructions per request); then one pass over the collected
/// fields (≈ 320: each tuple copied, retained and released); now the server notes each field
/// as it collects it, on the name's bytes. The name's length picks the one name it could be
/// (Host 4, Content-Length 14, Transfer-Encoding 17) and only then are the names compared,
/// ignoring ASCII case as before.
struct FramingFields: Equatable {
    private(set) var hosts = 0
    /// Values of every Content-Length field, in order.
    private(set) var contentLengths: [String] = []
    /// Values of every Transfer-Encoding field, in order.
    private(set) var transferEncodings: [String] = []

    /// No fields yet.
    init() {}

    /// The facts of a whole header section.
    init(_ headers: HTTPHeaders) {
        for field in headers {
            var name = field.name
            name.withUTF8 { note(name: UnsafeRawBufferPointer($0), value: field.value) }
        }
    }

    /// Takes one field into account: its name's bytes as received, its value.
    /// `value` is made only for a Content-Length or Transfer-Encoding field.
    mutating func note(name: UnsafeRawBufferPointer, value: @autoclosure () -> String) {
        switch name.count {
        case 4:
            if Self.name(name, is: "host") { hosts += 1 }
        case 14:
            if Self.name(name, is: "content-length") { contentLengths.append(value()) }
        case 17:
            if Self.name(name, is: "transfer-encoding") { transferEncodings.append(value()) }
        default:
            break
        }
    }

    /// Whether `name` spells `lowercased` ignoring ASCII case (as every field lookup compares).
    private static func name(_ name: UnsafeRawBufferPointer, is lowercased: StaticString) -> Bool {
        ASCIICaseInsensitive.equal(name, lowercase: lowercased)
    }
}

/// The first field line of a request that breaks RFC 9112's field syntax.
package enum FieldSyntaxViolation: Sendable, Equatable {
    /// A field name that is not a token: empty, with whitespace (also before the colon, or a
    /// whitespace-led line), or with separators.
    case invalidName
    /// A field value with a control character other than HTAB (a bare CR, NUL, …).
    case invalidValue
    /// Bytes of the header section that no reported field accounts for: obs-fold, a NUL
    /// that cut a value short, or a line libmicrohttpd dropped.
    case unaccountedBytes

    /// The 400 this violation is answered with.
    var problem: ProblemDetails {
        switch self {
        case .invalidName:
            .badRequest(
                kind: "invalid-header-field-name",
                detail:
                    "A header field name is not a token: names must not be empty or contain whitespace (none before "
                    + "the colon, and no field line may start with whitespace) (RFC 9112 §5.1).")
        case .invalidValue:
            .badRequest(
                kind: "invalid-header-field-value",
                detail: "A header field value contains CR, LF, NUL or another control character (RFC 9110 §5.5).")
        case .unaccountedBytes:
            .badRequest(
                kind: "malformed-header-section",
                detail:
                    "The header section has a line that is not a name: value field: obsolete line folding (a line "
                    + "starting with whitespace), a NUL byte or an empty field name (RFC 9112 §5.2).")
        }
    }
}
