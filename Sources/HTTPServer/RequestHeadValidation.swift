/// Checks on the request line and header section that libmicrohttpd 0.9.75 does not make.
///
/// MHD accepts both Content-Length and Transfer-Encoding, duplicate Host headers and
/// HTTP/1.1 without Host; each is a request-smuggling or cache-poisoning vector behind a
/// proxy (RFC 9112 §3.2, §6.1), so they are rejected here before the responder runs.
struct RequestHeadValidation: Sendable {
    let maxTargetBytes: Int
    let maxHeaderBytes: Int

    /// Validates a request head and returns its declared Content-Length (nil when absent).
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - rawTarget: the target as on the request line.
    ///   - httpVersion: "HTTP/1.1" or "HTTP/1.0".
    ///   - headers: the header fields in order.
    ///   - headerBytes: size of the header section (`name: value\r\n` per field).
    /// - Throws: the first violated rule as a problem.
    func validate(method: String, rawTarget: String, httpVersion: String, headers: HTTPHeaders, headerBytes: Int)
        throws(ProblemDetails) -> Int?
    {
        if method == "CONNECT" {
            // MHD 0.9.75 cannot tunnel: it would send a 200 without framing and keep the socket.
            throw ProblemDetails(
                kind: "connect-not-supported", title: "Not implemented", status: 501,
                detail:
                    "HTTPS tunnelling (CONNECT) is not supported by this mode: libmicrohttpd 0.9.75 cannot tunnel. "
                    + "For HTTPS sites use navpolicyd as a reverse proxy (proxy.upstream + proxy.publicOrigin, TLS "
                    + "ending in front of it) or nginx auth_request with GET /v1/authz.")
        }
        if rawTarget.utf8.count > maxTargetBytes { throw .uriTooLong(limit: maxTargetBytes) }
        if headerBytes > maxHeaderBytes { throw .headerFieldsTooLarge(limit: maxHeaderBytes) }

        let hosts = headers.count(of: "Host")
        if hosts > 1 {
            throw .badRequest(
                kind: "duplicate-host", detail: "The request has \(hosts) Host header fields; exactly one is allowed.")
        }
        if hosts == 0 && httpVersion == "HTTP/1.1" {
            throw .badRequest(kind: "missing-host", detail: "An HTTP/1.1 request must have a Host header field.")
        }

        let contentLengths = headers.values(for: "Content-Length")
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        if !contentLengths.isEmpty && !transferEncodings.isEmpty {
            throw .badRequest(
                kind: "conflicting-framing",
                detail: "The request has both Content-Length and Transfer-Encoding; send only one.")
        }
        if !transferEncodings.isEmpty {
            let codings = transferEncodings.joined(separator: ",").split(separator: ",").map { trimmed($0).lowercased() }
            guard codings == ["chunked"] else {
                throw ProblemDetails(
                    kind: "unsupported-transfer-encoding", title: "Not implemented", status: 501,
                    detail: "Only Transfer-Encoding: chunked is supported.")
            }
            return nil
        }
        return try declaredLength(contentLengths)
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
            throw .badRequest(kind: "invalid-content-length", detail: "Content-Length must be one non-negative decimal integer.")
        }
        return length
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
}
