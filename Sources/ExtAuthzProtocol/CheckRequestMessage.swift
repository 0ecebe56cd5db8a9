/// The fields of Envoy's `envoy.service.auth.v3.CheckRequest` that a navigation decision reads:
/// `attributes` (1) → `request` (4) → `http` (2), an `AttributeContext.HttpRequest`.
///
/// Field numbers are Envoy's published API (`envoy/service/auth/v3/external_auth.proto`,
/// `attribute_context.proto`, `envoy/config/core/v3/base.proto`), checked against the
/// descriptors of the PyPI `xds-protos` package, plus the source peer's address (for the
/// decision log). Every other field (the destination peer, TLS, metadata, the body) is skipped by the protobuf rules without being parsed, so the decoder never recurses
/// into a message it does not need and its depth is fixed at five.
public struct CheckRequestMessage: Equatable, Sendable {
    /// `HttpRequest.method` (2).
    public var method = ""
    /// `HttpRequest.path` (4): the request target as in the request line, query included.
    public var path = ""
    /// `HttpRequest.host` (5): the `:authority` / `Host`.
    public var host = ""
    /// `HttpRequest.scheme` (6).
    public var scheme = ""
    /// `HttpRequest.protocol` (10), e.g. `HTTP/1.1`: logged, not decided on.
    public var httpProtocol = ""
    /// `HttpRequest.id` (1): Envoy's request id, for the decision log.
    public var id = ""
    /// `attributes.source` (1) → `address` (1) → `socket_address` (1) → `address` (2): the
    /// downstream client's address as Envoy saw it (with `use_remote_address`, the TCP peer of
    /// the edge), for the decision log; empty when Envoy sent none (a pipe, a non-Envoy client).
    public var sourceAddress = ""
    /// The request's headers, names as Envoy sent them (lowercase), in wire order: from
    /// `header_map` (13) when Envoy sends it (`encode_raw_headers`), else from the `headers`
    /// map (3), where a repeated key replaces the earlier value as the protobuf map rules say.
    public var headers: [(name: String, value: String)] = []

    /// A request with these fields (tests build the expected values with it).
    public init(
        method: String = "", path: String = "", host: String = "", scheme: String = "", httpProtocol: String = "",
        id: String = "", headers: [(name: String, value: String)] = []
    ) {
        self.method = method
        self.path = path
        self.host = host
        self.scheme = scheme
        self.httpProtocol = httpProtocol
        self.id = id
        self.headers = headers
    }

    /// The most header entries one request may carry (map entries plus `header_map` values):
    /// Envoy's own default limit is 100 headers per request.
    public static let maxHeaderCount = 1024

    /// Decodes a serialized `CheckRequest`; the caller bounds its size (the gRPC listener's
    /// message limit). Throws on any malformed input: truncation, bad wire types, invalid UTF-8
    /// in a string field, more than ``maxHeaderCount`` headers.
    public init(serialized bytes: ArraySlice<UInt8>) throws(ProtobufError) {
        var map: [(name: String, value: String)] = []
        var headerMap: [(name: String, value: String)] = []
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: "CheckRequest") {
            if field.number == 1 {
                try reader.require(field.wireType, .lengthDelimited, in: "CheckRequest", field: "attributes")
                try decodeAttributes(reader.lengthDelimited(in: "CheckRequest"), map: &map, headerMap: &headerMap)
            } else {
                try reader.skip(field.wireType, in: "CheckRequest")
            }
        }
        headers = headerMap.isEmpty ? map : headerMap
    }

    private mutating func decodeAttributes(
        _ bytes: ArraySlice<UInt8>, map: inout [(name: String, value: String)],
        headerMap: inout [(name: String, value: String)]
    ) throws(ProtobufError) {
        let name = "AttributeContext"
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: name) {
            if field.number == 1 {
                try reader.require(field.wireType, .lengthDelimited, in: name, field: "source")
                sourceAddress = try Self.peerAddress(reader.lengthDelimited(in: name))
            } else if field.number == 4 {
                try reader.require(field.wireType, .lengthDelimited, in: name, field: "request")
                var inner = ProtobufReader(try reader.lengthDelimited(in: name))
                while let requestField = try inner.nextField(in: "AttributeContext.Request") {
                    if requestField.number == 2 {
                        try inner.require(requestField.wireType, .lengthDelimited, in: "AttributeContext.Request", field: "http")
                        try decodeHTTP(inner.lengthDelimited(in: "AttributeContext.Request"), map: &map, headerMap: &headerMap)
                    } else {
                        try inner.skip(requestField.wireType, in: "AttributeContext.Request")
                    }
                }
            } else {
                try reader.skip(field.wireType, in: name)
            }
        }
    }

    private mutating func decodeHTTP(
        _ bytes: ArraySlice<UInt8>, map: inout [(name: String, value: String)],
        headerMap: inout [(name: String, value: String)]
    ) throws(ProtobufError) {
        let name = "HttpRequest"
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: name) {
            switch field.number {
            case 1, 2, 4, 5, 6, 10:
                try reader.require(field.wireType, .lengthDelimited, in: name, field: "\(field.number)")
                let text = try reader.string(in: name, field: "\(field.number)")
                switch field.number {
                case 1: id = text
                case 2: method = text
                case 4: path = text
                case 5: host = text
                case 6: scheme = text
                default: httpProtocol = text
                }
            case 3:
                try reader.require(field.wireType, .lengthDelimited, in: name, field: "headers")
                let entry = try Self.pair(reader.lengthDelimited(in: name), in: "HttpRequest.HeadersEntry", raw: false)
                // A map: a repeated key replaces the earlier entry.
                if let index = map.firstIndex(where: { $0.name == entry.name }) {
                    map[index] = entry
                } else {
                    try Self.checkCount(map.count + headerMap.count)
                    map.append(entry)
                }
            case 13:
                try reader.require(field.wireType, .lengthDelimited, in: name, field: "header_map")
                var inner = ProtobufReader(try reader.lengthDelimited(in: name))
                while let mapField = try inner.nextField(in: "HeaderMap") {
                    guard mapField.number == 1 else {
                        try inner.skip(mapField.wireType, in: "HeaderMap")
                        continue
                    }
                    try inner.require(mapField.wireType, .lengthDelimited, in: "HeaderMap", field: "headers")
                    try Self.checkCount(map.count + headerMap.count)
                    headerMap.append(try Self.pair(inner.lengthDelimited(in: "HeaderMap"), in: "HeaderValue", raw: true))
                }
            default:
                // query (7) and fragment (8) are empty from Envoy (the path carries the query),
                // size (9), body (11), raw_body (12) are not decided on.
                try reader.skip(field.wireType, in: name)
            }
        }
    }

    /// A map entry (`key` 1, `value` 2) or a `HeaderValue` (`key` 1, `value` 2, `raw_value` 3:
    /// the bytes Envoy sends instead of `value` with `encode_raw_headers`; they must be UTF-8
    /// here, since a navigation decision reads text).
    private static func pair(_ bytes: ArraySlice<UInt8>, in message: String, raw: Bool) throws(ProtobufError) -> (
        name: String, value: String
    ) {
        var key = ""
        var value = ""
        var rawValue: String?
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: message) {
            switch field.number {
            case 1:
                try reader.require(field.wireType, .lengthDelimited, in: message, field: "key")
                key = try reader.string(in: message, field: "key")
            case 2:
                try reader.require(field.wireType, .lengthDelimited, in: message, field: "value")
                value = try reader.string(in: message, field: "value")
            case 3 where raw:
                try reader.require(field.wireType, .lengthDelimited, in: message, field: "raw_value")
                rawValue = try reader.string(in: message, field: "raw_value")
            default:
                try reader.skip(field.wireType, in: message)
            }
        }
        return (key, rawValue ?? value)
    }

    /// `Peer.address` (1) → `Address.socket_address` (1) → `SocketAddress.address` (2); every
    /// other field of the three messages is skipped. Three fixed levels, no recursion.
    private static func peerAddress(_ bytes: ArraySlice<UInt8>) throws(ProtobufError) -> String {
        guard let address = try lastLengthDelimited(1, of: bytes, in: "Peer", field: "address"),
            let socket = try lastLengthDelimited(1, of: address, in: "Address", field: "socket_address"),
            let text = try lastLengthDelimited(2, of: socket, in: "SocketAddress", field: "address")
        else { return "" }
        // A string field: proto3 requires valid UTF-8, as ProtobufReader.string checks.
        guard let address = String(validating: text, as: UTF8.self) else {
            throw ProtobufError("SocketAddress.address: not valid UTF-8")
        }
        return address
    }

    /// The last occurrence of the length-delimited field `number` of `bytes` (protobuf: the
    /// last one wins), every other field skipped; nil when it is absent.
    private static func lastLengthDelimited(
        _ number: UInt64, of bytes: ArraySlice<UInt8>, in message: String, field name: String
    ) throws(ProtobufError) -> ArraySlice<UInt8>? {
        var found: ArraySlice<UInt8>?
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: message) {
            guard field.number == number else {
                try reader.skip(field.wireType, in: message)
                continue
            }
            try reader.require(field.wireType, .lengthDelimited, in: message, field: name)
            found = try reader.lengthDelimited(in: message)
        }
        return found
    }

    private static func checkCount(_ count: Int) throws(ProtobufError) {
        guard count < maxHeaderCount else { throw ProtobufError("HttpRequest: more than \(maxHeaderCount) headers") }
    }

    /// Equal when every field and every header (in order) is.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.host == rhs.host && lhs.scheme == rhs.scheme
            && lhs.httpProtocol == rhs.httpProtocol && lhs.id == rhs.id && lhs.sourceAddress == rhs.sourceAddress
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}
