/// Where a ``GRPCServer`` reports what happens: its events (`grpc.protocol_error`,
/// `grpc.not_http2`, `grpc.connection_refused`, `grpc.request_timeout`, `grpc.response_timeout`,
/// `grpc.connection_closed`) with string fields, for the log, and every answered call with its
/// `:path` and status, for the metrics.
public struct GRPCServerObserver: Sendable {
    private let sink: @Sendable (String, [String: String]) -> Void
    private let answer: @Sendable (String, String) -> Void

    /// An observer handing events to `event` and answers to `answered`: the call's `:path` as
    /// the client sent it (unbounded: map it to a known set before using it as a label) and
    /// its status — the gRPC status number (`"0"`…`"16"`), or `"http_415"` / `"http_405"` for a
    /// request that was not gRPC at all.
    public init(
        event: @escaping @Sendable (_ event: String, _ fields: [String: String]) -> Void,
        answered: @escaping @Sendable (_ path: String, _ status: String) -> Void = { _, _ in }
    ) {
        self.sink = event
        self.answer = answered
    }

    func event(_ name: String, _ fields: [String: String]) { sink(name, fields) }

    func answered(_ path: String, _ response: GRPCUnaryService.Response) {
        switch response {
        case .grpc: answer(path, "0")
        case .grpcStatus(let code, _): answer(path, "\(code.rawValue)")
        case .http(let status, _): answer(path, "http_\(status)")
        }
    }
}
