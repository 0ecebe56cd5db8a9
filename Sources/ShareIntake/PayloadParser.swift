/// Turns a request body into a ``SharedPayload`` according to its `Content-Type`.
///
/// Applies the transport rules of issue 4 before any format parser runs: the size limit of
/// the media type, `charset` must be UTF-8 when given, valid UTF-8 and no NUL anywhere.
public struct PayloadParser: Sendable {
    /// The media types `POST /v1/intake` accepts, as advertised in `Accept-Post`.
    public static let acceptedMediaTypes = [
        "application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/uri-list", "text/plain",
    ]
    /// The media types of Web Share Target forms (`POST /v1/intake/share-target`).
    public static let formMediaTypes = ["application/x-www-form-urlencoded", "multipart/form-data"]

    /// The limits the parser enforces.
    public let limits: IntakeLimits

    /// Creates a parser with the given limits.
    public init(limits: IntakeLimits = IntakeLimits()) {
        self.limits = limits
    }

    /// Parses `body` sent with `contentType`.
    /// - Parameter accepted: the media types this endpoint takes (415 for others).
    /// - Throws: ``IntakeFailure`` with the kind the client must see.
    public func parse(contentType: String?, body: [UInt8], accepted: [String] = PayloadParser.acceptedMediaTypes)
        throws(IntakeFailure) -> SharedPayload
    {
        guard let contentType, let mediaType = MediaType(contentType), accepted.contains(mediaType.essence) else {
            throw IntakeFailure(
                .unsupportedMediaType,
                "send one of " + accepted.joined(separator: ", ")
                    + (contentType.map { ", not \($0)" } ?? "; Content-Type is missing"),
                extensions: ["accepted": .array(accepted.map { .string($0) })])
        }
        if let repeated = mediaType.repeatedParameter {
            throw IntakeFailure(
                .malformedBody, "Content-Type gives the parameter \(repeated) more than once; send it once")
        }
        if let extended = mediaType.extendedParameter {
            throw IntakeFailure(
                .malformedBody, "Content-Type parameter \(extended) (RFC 8187 notation) is not accepted; send it without *")
        }
        if let charset = mediaType.parameters["charset"], charset.lowercased() != "utf-8" {
            throw IntakeFailure(
                .unsupportedMediaType, "only UTF-8 is accepted, not charset=\(charset)",
                extensions: ["accepted": .array(accepted.map { .string($0) })])
        }
        let limit = mediaType.essence == "multipart/form-data" ? limits.multipartBytes : limits.textBodyBytes
        guard body.count <= limit else {
            throw IntakeFailure(
                .payloadTooLarge, "a \(mediaType.essence) body may hold at most \(limit) bytes",
                extensions: ["limit": .number(Double(limit))])
        }
        switch mediaType.essence {
        case "multipart/form-data":
            guard let boundary = mediaType.parameters["boundary"], !boundary.isEmpty else {
                throw IntakeFailure(.malformedBody, "multipart/form-data needs a boundary parameter")
            }
            let fields = try MultipartFormData.parse(body, boundary: boundary)
            return try FormPayload.payload(from: fields, format: .multipart)
        default:
            let text = try Self.utf8Text(body)
            switch mediaType.essence {
            case "application/json": return try JSONPayload(limits: limits).parse(body)
            case "application/x-www-form-urlencoded":
                return try FormPayload.payload(from: FormPayload.decodeURLEncoded(text), format: .formURLEncoded)
            case "text/uri-list": return try URIList.payload(from: text)
            default: return try Self.plainText(text)
            }
        }
    }

    /// The body as text: valid UTF-8 without NUL.
    static func utf8Text(_ bytes: [UInt8]) throws(IntakeFailure) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw IntakeFailure(.malformedBody, "the body is not valid UTF-8")
        }
        try rejectNUL(text, in: "the body")
        return text
    }

    static func rejectNUL(_ text: String, in place: String) throws(IntakeFailure) {
        if text.utf8.contains(0) { throw IntakeFailure(.malformedBody, "\(place) contains a NUL character") }
    }

    private static func plainText(_ text: String) throws(IntakeFailure) -> SharedPayload {
        guard let url = FreeTextURL.first(in: text) else {
            throw IntakeFailure(.noURLFound, "no http(s) URL in the text", extensions: ["searched": .array([.string("text")])])
        }
        return SharedPayload(format: .plainText, urls: [url], text: text)
    }
}
