/// What a unary method answers: one response message (status OK), or a status without one.
public enum GRPCOutcome: Sendable, Equatable {
    /// `grpc-status: 0` after this serialized message.
    case message([UInt8])
    /// A Trailers-Only response with this status and `grpc-message` (percent-encoded on the wire).
    case status(GRPCStatusCode, String)
}

/// One unary method: the serialized request message in, the outcome out. Runs on the
/// connection's thread, so it must not block.
public typealias GRPCMethod = @Sendable (ArraySlice<UInt8>) -> GRPCOutcome
