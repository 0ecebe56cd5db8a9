import JSONSupport
import Synchronization

/// Everything the C callbacks need, passed to libmicrohttpd as their `cls` pointer.
///
/// Separate from ``HTTPServer`` so that the daemon can hold a strong reference to it
/// (released after `MHD_stop_daemon`) while `HTTPServer.deinit` still runs when users
/// drop the server.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: ResponderKind
    let logger: HTTPServerLogger
    let headValidation: RequestHeadValidation
    /// Set at the start of shutdown: every response then carries `Connection: close`.
    let isDraining = Atomic<Bool>(false)
    /// Requests between the URI-log and the completion callback; shutdown waits for 0.
    let requestsInFlight = Atomic<Int>(0)
    let suspendedConnections = SuspendedConnections()
    /// Streamed response bodies being sent; shutdown ends them.
    let streamedBodies = StreamedBodies()

    init(configuration: HTTPServerConfiguration, responder: ResponderKind, logger: @escaping HTTPServerLogger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.headValidation = RequestHeadValidation(
            maxTargetBytes: configuration.maxTargetBytes, maxHeaderBytes: configuration.maxHeaderBytes)
    }

    func log(_ level: HTTPServerLogEvent.Level, _ event: String, _ fields: JSONObject = JSONObject()) {
        logger(HTTPServerLogEvent(level: level, event: event, fields: fields))
    }
}
