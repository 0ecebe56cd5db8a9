/// Why a protobuf message was refused: the gRPC listener answers `INVALID_ARGUMENT` with
/// ``description`` as the `grpc-message`.
public struct ProtobufError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong, and where (the message and field it was decoding).
    public let description: String

    init(_ description: String) { self.description = description }
}
