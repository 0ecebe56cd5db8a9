import CMicroHTTPD
import JSONSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The head errors libmicrohttpd 0.9.75 answers itself before the access handler runs,
/// recognized by the message it logs.
///
/// MHD's own answers break the problem+json contract: a malformed Content-Length gets its
/// HTML error twice, the second copy as the body (finding 11); a head whose fields or query
/// parameters do not fit the connection's pool (MHD keeps a 64-byte record per field and
/// per parameter next to the head) gets an HTML 431, or nothing at all when the parameters
/// overflow (MHD then overwrites the error state and waits for more of the head). The
/// server answers these requests itself instead (see
/// ``ServerCore/answerLibraryRejection(_:)``) whenever it can tell the connection.
enum LibraryHeadRejection {
    /// How far MHD got with the head when it failed: decides which connections can be the one.
    enum Stage: Sendable {
        /// The request line did not fit: no callback has seen this request yet.
        case beforeRequestLine
        /// After the request line (the URI-log callback ran), before the head was complete.
        case requestLineParsed
        /// The whole head was in: MHD was checking its fields (`parse_connection_headers`).
        case headComplete
    }

    /// What to answer, and when MHD failed.
    struct Rejection: Sendable {
        var problem: ProblemDetails
        var stage: Stage
    }

    /// 431 for a head that ran the connection's pool out after its request line.
    static let poolHeaderFieldsTooLarge = ProblemDetails(
        kind: "request-header-fields-too-large", title: "Request header fields too large", status: 431,
        detail:
            "The request line and header fields do not fit in the connection's memory "
            + "(server.connectionMemoryLimitBytes); send fewer header fields or query parameters.")

    /// 414 for a request line that ran the connection's pool out.
    static let poolURITooLong = ProblemDetails(
        kind: "uri-too-long", title: "URI too long", status: 414,
        detail: "The request line does not fit in the connection's memory (server.connectionMemoryLimitBytes).")

    /// The rejection for an MHD log line, or nil when the line is not one of these.
    static func rejection(forMessage message: String) -> Rejection? {
        // `+5`, `-1`, `5, 5`, an empty value: not 1*DIGIT; or more than 64 bits of digits.
        if message.hasPrefix("Failed to parse `Content-Length' header")
            || message.hasPrefix("Too large value of 'Content-Length' header")
        {
            return Rejection(problem: .invalidContentLength, stage: .headComplete)
        }
        // `transmit_error_response_len` logs this once per request (a second call returns
        // before logging), on every pool-overflow path: a field or query-parameter record, a
        // line that cannot grow the read buffer, a folded line, the Cookie copy. MHD sends
        // 414 only while the request line is incomplete (`connection->url` still NULL).
        if message.hasPrefix("Error processing request (HTTP response code is 431 (") {
            return Rejection(problem: poolHeaderFieldsTooLarge, stage: .requestLineParsed)
        }
        if message.hasPrefix("Error processing request (HTTP response code is 414 (") {
            return Rejection(problem: poolURITooLong, stage: .beforeRequestLine)
        }
        return nil
    }

    /// `response` as the bytes of an HTTP/1.1 response that closes the connection.
    static func wireBytes(of response: HTTPResponse) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status.code)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nConnection: close\r\nDate: \(httpDate())\r\n"
        for field in response.headers
        where !HTTPFieldName.connection.matches(field.name) && !HTTPFieldName.contentLength.matches(field.name) {
            head += "\(field.name): \(field.value)\r\n"
        }
        let body = response.bodyBytes
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The current time as an IMF-fixdate (RFC 9110 §5.6.7).
    private static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer -> String in
            guard let base = buffer.baseAddress else { return "" }
            let written = strftime(base, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            return written > 0 ? String(cString: base) : ""
        }
    }
}

extension ServerCore {
    /// MHD is rejecting the head of a request on this worker thread (it just logged why):
    /// answer with the problem on the socket directly and shut it down, so MHD's answer is
    /// never sent (or, for overflowing query parameters, the client is not left waiting).
    /// When the connection cannot be told apart, MHD's answer stands.
    func answerLibraryRejection(_ rejection: LibraryHeadRejection.Rejection) {
        let problem = rejection.problem
        guard let tracked = connections.connectionRejectedByLibrary(rejection.stage) else {
            log(
                .warning, "http.library_rejection_unanswered",
                ["kind": .string(problem.kind), "status": .number(Double(problem.status.code))])
            return
        }
        let bytes = LibraryHeadRejection.wireBytes(of: problem.response(typePrefix: configuration.problemTypePrefix))
        let answered = connections.answerDirectly(tracked, with: bytes)
        log(
            .info, "http.request_rejected",
            [
                "status": .number(Double(problem.status.code)), "kind": .string(problem.kind),
                "remoteAddress": .string(tracked.remoteAddress), "answered": .bool(answered),
            ])
    }
}
