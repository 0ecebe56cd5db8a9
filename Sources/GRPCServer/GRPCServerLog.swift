/// Where a ``GRPCServer`` reports its events (`grpc.protocol_error`, `grpc.not_http2`,
/// `grpc.connection_refused`, `grpc.request_timeout`): an event name and string fields.
public struct GRPCServerLog: Sendable {
    private let sink: @Sendable (String, [String: String]) -> Void

    /// A log that hands every event to `sink`.
    public init(_ sink: @escaping @Sendable (_ event: String, _ fields: [String: String]) -> Void) {
        self.sink = sink
    }

    func event(_ name: String, _ fields: [String: String]) { sink(name, fields) }
}
