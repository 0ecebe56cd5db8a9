/// The gRPC status codes this server sends (grpc/grpc `doc/statuscodes.md`).
public enum GRPCStatusCode: Int, Sendable {
    case ok = 0
    case invalidArgument = 3
    case deadlineExceeded = 4
    case notFound = 5
    case permissionDenied = 7
    case resourceExhausted = 8
    case unimplemented = 12
    case `internal` = 13
    case unavailable = 14
}
