import CMicroHTTPD
import JSONSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The header errors libmicrohttpd 0.9.75 answers itself in `parse_connection_headers`,
/// before the access handler runs, recognized by the message it logs first.
///
/// MHD then overwrites its own connection state and builds its HTML error response twice:
/// the client receives the status line and headers twice, the second copy as the body
/// (finding 11). The server answers these requests itself instead (see
/// ``ServerCore/answerLibraryRejection(_:)``).
enum LibraryHeadRejection {
    /// The problem to answer for an MHD log line, or nil when the line is not one of these.
    static func problem(forMessage message: String) -> ProblemDetails? {
        // `+5`, `-1`, `5, 5`, an empty value: not 1*DIGIT; or more than 64 bits of digits.
        if message.hasPrefix("Failed to parse `Content-Length' header")
            || message.hasPrefix("Too large value of 'Content-Length' header")
        {
            return .invalidContentLength
        }
        // The Cookie header is copied into the connection's pool to be split; no room left.
        if message.hasPrefix("Not enough memory in pool to parse cookies") {
            return ProblemDetails(
                kind: "request-header-fields-too-large", title: "Request header fields too large", status: 431,
                detail: "The header fields do not fit in the connection's memory (server.connectionMemoryLimitBytes).")
        }
        return nil
    }

    /// `response` as the bytes of an HTTP/1.1 response that closes the connection.
    static func wireBytes(of response: HTTPResponse) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nConnection: close\r\nDate: \(httpDate())\r\n"
        for field in response.headers
        where !HTTPHeaders.namesMatch(field.name, "Connection") && !HTTPHeaders.namesMatch(field.name, "Content-Length") {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
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
    /// answer with `problem` on the socket directly and shut it down, so MHD's malformed
    /// answer is never sent. When the connection cannot be told apart, MHD's answer stands.
    func answerLibraryRejection(_ problem: ProblemDetails) {
        guard let tracked = connections.connectionRejectedByLibrary() else {
            log(.warning, "http.library_rejection_unanswered", ["kind": .string(problem.kind)])
            return
        }
        let bytes = LibraryHeadRejection.wireBytes(of: problem.response(typePrefix: configuration.problemTypePrefix))
        let answered = connections.answerDirectly(tracked, with: bytes)
        log(
            .info, "http.request_rejected",
            [
                "status": .number(Double(problem.status)), "kind": .string(problem.kind),
                "remoteAddress": .string(tracked.remoteAddress), "answered": .bool(answered),
            ])
    }
}
