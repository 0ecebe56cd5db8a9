import GRPCServer
import HTTPServer

/// The gRPC listener's ``GRPCServer`` as the daemon drives every listener: its start failures
/// become the ``HTTPServerError`` kinds the HTTP listeners report, with the same detail.
struct GRPCListenerServer: ListenerServer {
    let server: GRPCServer

    func start() throws(HTTPServerError) -> UInt16 {
        do {
            return try server.start()
        } catch {
            let kind: HTTPServerError =
                switch error.kind {
                case .invalidAddress: .invalidAddress
                case .addressInUse: .addressInUse
                case .addressNotAvailable: .addressNotAvailable
                case .permissionDenied: .permissionDenied
                case .socketFailure: .socketFailure
                }
            throw kind.with(detail: "ext_authz gRPC listener: \(error.description)")
        }
    }

    var boundPort: UInt16? { server.boundPort }
    var openConnections: Int { server.openConnections }
    func stopAccepting() { server.stopAccepting() }
    func shutdown(until deadline: ContinuousClock.Instant) { server.shutdown(until: deadline) }
}
