public import JSONSupport

/// An RFC 9457 problem, rendered as `application/problem+json`.
///
/// `kind` is a stable, machine-readable name ("payload-too-large"); the `type` member is
/// the configured prefix followed by the kind, so clients can branch on it.
public struct ProblemDetails: Sendable, Equatable, Error {
    /// Stable kind, appended to the type prefix to form the `type` URI.
    public var kind: String
    /// Short human-readable summary that does not change between occurrences.
    public var title: String
    /// The HTTP status code, repeated in the body as RFC 9457 recommends.
    public var status: HTTPStatus
    /// Explanation of this occurrence (what to fix); nil to omit.
    public var detail: String?
    /// Additional members, written after the standard ones.
    public var extensions: JSONObject

    /// Creates a problem.
    public init(kind: String, title: String, status: HTTPStatus, detail: String? = nil, extensions: JSONObject = JSONObject()) {
        self.kind = kind
        self.title = title
        self.status = status
        self.detail = detail
        self.extensions = extensions
    }

    /// The problem as a JSON object: `type`, `title`, `status`, `detail`, then extensions.
    public func jsonObject(typePrefix: String) -> JSONObject {
        var object = JSONObject()
        object.append("type", .string(typePrefix + kind))
        object.append("title", .string(title))
        object.append("status", .number(Double(status.code)))
        if let detail { object.append("detail", .string(detail)) }
        for member in extensions.members where !Self.reservedMembers.contains(member.key) {
            object.append(member.key, member.value)
        }
        return object
    }

    /// The problem as an `application/problem+json` response: the bytes of
    /// ``jsonObject(typePrefix:)``, written directly (cancels and errors answer with these
    /// on the hot path, so no intermediate tree is built).
    public func response(typePrefix: String) -> HTTPResponse {
        response(typePrefix: typePrefix) { _ in }
    }

    /// The problem as a response with more members written by `writeMembers` after the
    /// extensions, each preceded by a comma (`,"decision":{…}`): for members whose values
    /// already know how to write themselves, so that no JSON tree is built for them.
    public func response(typePrefix: String, writingMembers writeMembers: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.writeRaw(#"{"type":"#)
        writer.writeString(joining: typePrefix, kind)
        writer.writeRaw(#","title":"#)
        writer.writeString(title)
        writer.writeRaw(#","status":"#)
        writer.writeNumber(Double(status.code))
        if let detail {
            writer.writeRaw(#","detail":"#)
            writer.writeString(detail)
        }
        for member in extensions.members where !Self.reservedMembers.contains(member.key) {
            writer.writeRaw(",")
            writer.writeString(member.key)
            writer.writeRaw(":")
            writer.write(member.value)
        }
        writeMembers(&writer)
        writer.writeRaw("}")
        return .json(status: status, body: writer.bytes, contentType: "application/problem+json")
    }

    /// Extensions may not overwrite the standard members (RFC 9457 §3.2).
    private static let reservedMembers: Set<String> = ["type", "title", "status", "detail", "instance"]
}

extension ProblemDetails {
    /// 400: the request violates HTTP framing or syntax rules.
    static func badRequest(kind: String, detail: String) -> ProblemDetails {
        ProblemDetails(kind: kind, title: "Bad request", status: 400, detail: detail)
    }

    /// 400: Content-Length is not one non-negative decimal integer (repeats must agree).
    static let invalidContentLength = ProblemDetails.badRequest(
        kind: "invalid-content-length", detail: "Content-Length must be one non-negative decimal integer.")

    /// 413: the body is larger than the configured limit.
    static func payloadTooLarge(limit: Int) -> ProblemDetails {
        ProblemDetails(
            kind: "payload-too-large", title: "Payload too large", status: 413,
            detail: "The request body exceeds \(limit) bytes.", extensions: ["limit": .number(Double(limit))])
    }

    /// 414: the request target is longer than the configured limit.
    static func uriTooLong(limit: Int) -> ProblemDetails {
        ProblemDetails(
            kind: "uri-too-long", title: "URI too long", status: 414,
            detail: "The request target exceeds \(limit) bytes.", extensions: ["limit": .number(Double(limit))])
    }

    /// 431: the header section is larger than the configured limit.
    static func headerFieldsTooLarge(limit: Int) -> ProblemDetails {
        ProblemDetails(
            kind: "request-header-fields-too-large", title: "Request header fields too large", status: 431,
            detail: "The header fields exceed \(limit) bytes in total.", extensions: ["limit": .number(Double(limit))])
    }

    /// 500: the responder produced nothing usable.
    static let internalError = ProblemDetails(
        kind: "internal-error", title: "Internal server error", status: 500, detail: "The response could not be sent.")

    /// 503: the server is shutting down.
    static let shuttingDown = ProblemDetails(
        kind: "service-unavailable", title: "Service unavailable", status: 503, detail: "The server is shutting down.")
}
