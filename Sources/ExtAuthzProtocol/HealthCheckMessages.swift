/// The gRPC health protocol's messages (`grpc.health.v1`): `HealthCheckRequest { string
/// service = 1; }` and `HealthCheckResponse { ServingStatus status = 1; }`.
public enum HealthCheckMessages {
    /// `HealthCheckResponse.ServingStatus`.
    public enum ServingStatus: UInt64, Sendable {
        case serving = 1
        case notServing = 2
    }

    /// The `service` a `HealthCheckRequest` asks about ("" = the server as a whole).
    public static func service(serialized bytes: ArraySlice<UInt8>) throws(ProtobufError) -> String {
        var service = ""
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField(in: "HealthCheckRequest") {
            if field.number == 1 {
                try reader.require(field.wireType, .lengthDelimited, in: "HealthCheckRequest", field: "service")
                service = try reader.string(in: "HealthCheckRequest", field: "service")
            } else {
                try reader.skip(field.wireType, in: "HealthCheckRequest")
            }
        }
        return service
    }

    /// A serialized `HealthCheckResponse`.
    public static func response(_ status: ServingStatus) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.varint(1, status.rawValue)
        return writer.bytes
    }
}
