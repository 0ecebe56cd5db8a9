import Glibc
import HTTPTypes

/// Unary gRPC over the HTTP/2 transport: takes each request the transport hands over, checks
/// that it is a gRPC call (POST, a gRPC content type, a method served), unframes its one
/// message, runs the method, and frames the outcome as a response with `grpc-status` trailers
/// (gRPC PROTOCOL-HTTP2.md). Pure: tested without a connection.
struct GRPCUnaryService: Sendable {
    /// What the server sends back on a stream.
    enum Response: Equatable {
        /// A gRPC response: HEADERS, one length-prefixed message, `grpc-status: 0` trailers.
        case grpc([UInt8])
        /// A Trailers-Only gRPC response carrying this status.
        case grpcStatus(GRPCStatusCode, String)
        /// A plain HTTP response, for requests that are not gRPC at all (wrong method or
        /// content type): what the gRPC spec asks of a server that meets one.
        case http(status: Int, body: String)
    }

    /// A method with its `:path`, as text (for the metrics) and as the bytes a request's target is.
    private struct Route {
        let path: String
        let bytes: [UInt8]
        let method: GRPCMethod
    }

    /// The methods served (a handful): found by comparing bytes, so a request's target needs
    /// no String unless it names none of them.
    private let routes: [Route]
    /// The largest request message (after the 5-byte prefix).
    let maxMessageBytes: Int
    let observer: GRPCServerObserver

    /// A service answering `methods` (keyed by `:path`).
    init(methods: [String: GRPCMethod], maxMessageBytes: Int, observer: GRPCServerObserver) {
        routes = methods.map { Route(path: $0.key, bytes: Array($0.key.utf8), method: $0.value) }
        self.maxMessageBytes = maxMessageBytes
        self.observer = observer
    }

    /// The largest request body the transport keeps: one message and its prefix.
    var maxBodyBytes: Int { maxMessageBytes + 5 }

    /// The transport's handler: answers `request`, and reports the call to the observer.
    func respond(to request: HTTPRequest, overflow: H2Overflow?) -> HTTPResponse {
        let route = route(for: request.rawTargetBytes)
        let response = self.response(to: request, route: route, overflow: overflow)
        observer.answered(route?.path ?? request.rawTarget, response)
        return Self.httpResponse(response)
    }

    /// The answer to `request`, in the order the gRPC spec checks.
    func response(to request: HTTPRequest, overflow: H2Overflow?) -> Response {
        response(to: request, route: route(for: request.rawTargetBytes), overflow: overflow)
    }

    private func route(for target: [UInt8]) -> Route? {
        target.withUnsafeBytes { target in
            routes.first { route in
                route.bytes.count == target.count
                    && route.bytes.withUnsafeBytes { bytes in
                        guard let left = bytes.baseAddress, let right = target.baseAddress else { return bytes.isEmpty }
                        return memcmp(left, right, bytes.count) == 0
                    }
            }
        }
    }

    private func response(to request: HTTPRequest, route: Route?, overflow: H2Overflow?) -> Response {
        if case .headerList(let limit) = overflow {
            return .grpcStatus(.resourceExhausted, "the request's header list exceeds \(limit) bytes")
        }
        guard request.method == "POST" else { return .http(status: 405, body: "gRPC requests are POST\n") }
        guard request.withFirstHeaderValue(named: .contentType, { Self.isGRPC(contentType: $0) }) == true else {
            return .http(status: 415, body: "content-type must be application/grpc or application/grpc+proto\n")
        }
        guard let handler = route?.method else { return .grpcStatus(.unimplemented, "unknown method \(request.rawTarget)") }
        if case .body = overflow {
            return .grpcStatus(.resourceExhausted, "the request message exceeds \(maxMessageBytes) bytes")
        }
        switch Self.unaryMessage(request.body) {
        case .failure(let error): return error.response
        case .success(let message):
            switch handler(message) {
            case .message(let bytes): return .grpc(bytes)
            case .status(let code, let text): return .grpcStatus(code, text)
            }
        }
    }

    /// The HTTP response carrying `response`: gRPC answers are `200` with
    /// `content-type: application/grpc` and their status in `grpc-status` (in the trailers after
    /// a message; in the headers of a Trailers-Only answer, which has no body).
    static func httpResponse(_ response: Response) -> HTTPResponse {
        switch response {
        case .grpc(let message):
            var framed: [UInt8] = []
            framed.reserveCapacity(message.count + 5)
            let length = UInt32(clamping: message.count)
            framed += [
                0, UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
                UInt8(truncatingIfNeeded: length),
            ]
            framed += message
            var answer = HTTPResponse(status: .ok, headers: grpcHeaders, body: framed)
            answer.trailers = okTrailers
            return answer
        case .grpcStatus(let code, let message):
            return HTTPResponse(
                status: .ok,
                headers: HTTPHeaders(
                    [
                        ("content-type", "application/grpc"), ("grpc-status", "\(code.rawValue)"),
                        ("grpc-message", GRPCMessageEncoding.percentEncoded(message)),
                    ] as [(String, String)]))
        case .http(let status, let body):
            return HTTPResponse(
                status: HTTPStatus(code: status), headers: HTTPHeaders([("content-type", "text/plain")] as [(String, String)]),
                body: Array(body.utf8))
        }
    }

    // Fields spelled as HTTP/2 sends them (lowercase). Those of every successful call are made
    // once and shared (copy on write): building them per call cost ≈ 4 allocations.
    private static let grpcHeaders = HTTPHeaders([("content-type", "application/grpc")] as [(String, String)])
    private static let okTrailers = HTTPHeaders([("grpc-status", "0")] as [(String, String)])

    /// The same rule on the value's bytes: what every client sends is compared in place
    /// (`memcmp`), anything else made a String first.
    static func isGRPC(contentType: UnsafeRawBufferPointer) -> Bool {
        var usual = "application/grpc"
        let isUsual = usual.withUTF8 { usual in
            guard usual.count == contentType.count, let left = usual.baseAddress, let right = contentType.baseAddress else {
                return false
            }
            return memcmp(left, right, usual.count) == 0
        }
        return isUsual || isGRPC(contentType: String(decoding: contentType, as: UTF8.self))
    }

    /// `application/grpc`, `application/grpc+proto`, with or without parameters (the only
    /// subtype this server decodes is protobuf: `+json` and the rest are refused with 415).
    static func isGRPC(contentType: String) -> Bool {
        if contentType == "application/grpc" { return true }  // what every client sends: no allocation
        // Optional whitespace only before the `;` of parameters (RFC 9110 §5.6.6): a media type
        // has none inside it, so `application/ grpc` is no gRPC.
        var mediaType = (contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .lowercased()
        while mediaType.last == " " || mediaType.last == "\t" { mediaType.removeLast() }
        return mediaType == "application/grpc" || mediaType == "application/grpc+proto"
    }

    /// A unary request body is exactly one length-prefixed message (gRPC PROTOCOL-HTTP2.md):
    /// a compressed-flag byte (0: this server negotiates no compression) and a 4-byte
    /// big-endian length that covers the rest of the body exactly.
    static func unaryMessage(_ body: [UInt8]) -> Result<ArraySlice<UInt8>, UnaryFramingError> {
        guard body.count >= 5 else {
            return .failure(
                UnaryFramingError(.internal, "a unary request carries one length-prefixed message; got \(body.count) bytes"))
        }
        switch body[0] {
        case 0: break
        case 1:
            return .failure(
                UnaryFramingError(.unimplemented, "compressed messages are not supported (grpc-encoding identity only)"))
        default: return .failure(UnaryFramingError(.internal, "invalid compressed flag \(body[0])"))
        }
        let length = body[1...4].reduce(0) { $0 << 8 | Int($1) }
        guard length == body.count - 5 else {
            return .failure(
                UnaryFramingError(.internal, "message length \(length) does not match the \(body.count - 5) bytes sent"))
        }
        return .success(body[5...])
    }
}

/// Why a unary body was refused, as the gRPC status it gets.
struct UnaryFramingError: Error, Equatable {
    let response: GRPCUnaryService.Response

    init(_ code: GRPCStatusCode, _ message: String) { response = .grpcStatus(code, message) }
}
