/// One request stream of a connection, as it arrives: its header fields and its body, kept
/// within the configured bounds, then turned into the response it gets. Pure state: the
/// connection feeds it what nghttp2 reports, so its rules are tested without a socket.
struct GRPCStream {
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

    let openedAt: ContinuousClock.Instant
    private let maxHeaderListBytes: Int
    private let maxMessageBytes: Int
    private(set) var method = ""
    private(set) var path = ""
    private(set) var contentType: String?
    private(set) var encoding: String?
    private var headerBytes = 0
    private(set) var headersTooLarge = false
    private(set) var body: [UInt8] = []
    private(set) var bodyTooLarge = false

    init(openedAt: ContinuousClock.Instant, maxHeaderListBytes: Int, maxMessageBytes: Int) {
        self.openedAt = openedAt
        self.maxHeaderListBytes = maxHeaderListBytes
        self.maxMessageBytes = maxMessageBytes
    }

    /// One header field of the request (or of its trailers, which only count toward the limit).
    /// Sizes are counted as `SETTINGS_MAX_HEADER_LIST_SIZE` counts them: name + value + 32.
    mutating func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        headerBytes += name.count + value.count + 32
        guard headerBytes <= maxHeaderListBytes else {
            headersTooLarge = true
            return
        }
        guard !headersTooLarge else { return }
        switch String(decoding: name, as: UTF8.self) {
        case ":method": method = String(decoding: value, as: UTF8.self)
        case ":path": path = String(decoding: value, as: UTF8.self)
        case "content-type": contentType = String(decoding: value, as: UTF8.self)
        case "grpc-encoding": encoding = String(decoding: value, as: UTF8.self)
        default: break
        }
    }

    /// A chunk of the body. Past the 5-byte prefix plus ``maxMessageBytes`` nothing more is
    /// kept: the stream will be answered `RESOURCE_EXHAUSTED` once it ends.
    mutating func data(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard !bodyTooLarge else { return }
        guard body.count + chunk.count <= maxMessageBytes + 5 else {
            bodyTooLarge = true
            body = []
            return
        }
        body.append(contentsOf: chunk)
    }

    /// The response once the request ended, given the methods the server serves.
    func response(methods: [String: GRPCMethod]) -> Response {
        if headersTooLarge {
            return .grpcStatus(.resourceExhausted, "the request's header list exceeds \(maxHeaderListBytes) bytes")
        }
        guard method == "POST" else { return .http(status: 405, body: "gRPC requests are POST\n") }
        guard let contentType, Self.isGRPC(contentType: contentType) else {
            return .http(status: 415, body: "content-type must be application/grpc or application/grpc+proto\n")
        }
        guard let handler = methods[path] else { return .grpcStatus(.unimplemented, "unknown method \(path)") }
        if bodyTooLarge {
            return .grpcStatus(.resourceExhausted, "the request message exceeds \(maxMessageBytes) bytes")
        }
        switch Self.unaryMessage(body) {
        case .failure(let error): return error.response
        case .success(let message):
            switch handler(message) {
            case .message(let bytes): return .grpc(bytes)
            case .status(let code, let text): return .grpcStatus(code, text)
            }
        }
    }

    /// `application/grpc`, `application/grpc+proto`, with or without parameters (the only
    /// subtype this server decodes is protobuf: `+json` and the rest are refused with 415).
    static func isGRPC(contentType: String) -> Bool {
        if contentType == "application/grpc" { return true }  // what every client sends: no allocation
        let mediaType = (contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .filter { $0 != " " && $0 != "\t" }.lowercased()
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
    let response: GRPCStream.Response

    init(_ code: GRPCStatusCode, _ message: String) { response = .grpcStatus(code, message) }
}
