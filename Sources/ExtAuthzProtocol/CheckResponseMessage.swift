/// An `envoy.service.auth.v3.CheckResponse` to encode: an allow with headers for the upstream
/// request, or a denial with the HTTP response Envoy sends the client.
///
/// Field numbers (checked against `xds-protos`): `CheckResponse` status 1 (`google.rpc.Status`:
/// code 1, message 2), denied_response 2 (`DeniedHttpResponse`: status 1 → `HttpStatus.code` 1,
/// headers 2, body 3), ok_response 3 (`OkHttpResponse`: headers 2, headers_to_remove 5); `HeaderValueOption`: header 1
/// (`HeaderValue`: key 1, value 2), append_action 3.
public enum CheckResponseMessage: Equatable, Sendable {
    /// `status.code = OK` (0) and an `ok_response` whose headers Envoy sets on the upstream
    /// request, and the request headers it removes before forwarding (`headers_to_remove`).
    case ok(headers: [HeaderField], headersToRemove: [String] = [])
    /// `status.code` (`PERMISSION_DENIED` for a policy denial) and a `denied_response`: the HTTP
    /// status, headers and body Envoy answers the client with.
    case denied(grpcCode: Int, httpStatus: Int, headers: [HeaderField], body: String)

    /// One header of the response. Names are sent lowercase (HTTP/2 requires it of Envoy).
    public struct HeaderField: Equatable, Sendable {
        public var name: String
        public var value: String

        /// A header field with this name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `PERMISSION_DENIED`, the gRPC status of a denial.
    public static let permissionDenied = 7

    /// The serialized message.
    public var serialized: [UInt8] {
        var writer = ProtobufWriter()
        switch self {
        case .ok(let headers, let headersToRemove):
            writer.message(1) { _ in }  // google.rpc.Status with code OK: every field is the default
            writer.message(3) { ok in
                Self.write(headers, into: &ok)
                for name in headersToRemove { ok.string(5, name) }
            }
        case .denied(let grpcCode, let httpStatus, let headers, let body):
            writer.message(1) { status in status.varint(1, UInt64(max(0, grpcCode))) }
            writer.message(2) { denied in
                denied.message(1) { status in status.varint(1, UInt64(max(0, httpStatus))) }
                Self.write(headers, into: &denied)
                denied.string(3, body)
            }
        }
        return writer.bytes
    }

    /// `OVERWRITE_IF_EXISTS_OR_ADD`: a header of the answer replaces whatever the client sent
    /// under that name (Envoy's default, `APPEND_IF_EXISTS_OR_ADD`, would let a client that sends
    /// its own `x-navigation-decision: allow` have it reach the upstream beside the real one).
    static let overwriteIfExistsOrAdd: UInt64 = 2

    private static func write(_ headers: [HeaderField], into writer: inout ProtobufWriter) {
        for header in headers {
            writer.message(2) { option in
                option.message(1) { value in
                    value.string(1, header.name.lowercased())
                    value.string(2, header.value)
                }
                option.varint(3, overwriteIfExistsOrAdd)
            }
        }
    }
}
