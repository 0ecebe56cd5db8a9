import JSONSupport
import Synchronization

/// Everything the C callbacks need, passed to libmicrohttpd as their `cls` pointer.
///
/// Separate from ``HTTPServer`` so that the daemon can hold a strong reference to it
/// (released after `MHD_stop_daemon`) while `HTTPServer.deinit` still runs when users
/// drop the server.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: HTTPServerLogger
    let headValidation: RequestHeadValidation
    /// ``HTTPServerConfiguration/bodyLimitsByPath``, laid out for the per-request lookup.
    let bodyLimits: BodyLimitTable
    /// Set at the start of shutdown: every response then carries `Connection: close`.
    let isDraining = Atomic<Bool>(false)
    /// Taken-over connections (tunnels) closed with `MHD_NO` whose library message is still to
    /// come: MHD logs "Application reported internal error" for each, which is no error here.
    let takenCloses = Atomic<Int>(0)

    /// Takes one pending taken-connection close; false when none is pending.
    func consumeTakenClose() -> Bool {
        var pending = takenCloses.load(ordering: .relaxed)
        while pending > 0 {
            let (exchanged, current) = takenCloses.compareExchange(
                expected: pending, desired: pending - 1, ordering: .relaxed)
            if exchanged { return true }
            pending = current
        }
        return false
    }
    /// Requests between the URI-log and the completion callback; shutdown waits for 0.
    let requestsInFlight = Atomic<Int>(0)
    let suspendedConnections = SuspendedConnections()
    /// Streamed response bodies being sent; shutdown ends them.
    let streamedBodies = StreamedBodies()
    /// Open connections and their head and body deadlines (slowloris defence).
    let connections: ConnectionTracker
    /// `mhd.message` lines: MHD logs one per refused or broken connection, so a flood of
    /// connections would otherwise be a flood of log lines.
    let libraryMessages = LogRateLimiter(limit: 20, windowMilliseconds: 1_000)
    /// The responder's prepared responses and the server's fixed rejections, built once.
    let prebuilt: PrebuiltResponses

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: @escaping HTTPServerLogger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.headValidation = RequestHeadValidation(
            maxTargetBytes: configuration.maxTargetBytes, maxHeaderBytes: configuration.maxHeaderBytes,
            acceptsConnect: configuration.acceptsConnect)
        self.bodyLimits = BodyLimitTable(configuration.bodyLimitsByPath)
        self.connections = ConnectionTracker(
            limits: ConnectionLimits(
                headTimeoutMilliseconds: Int64(configuration.headTimeoutSeconds) * 1000,
                idleTimeoutMilliseconds: Int64(max(1, configuration.connectionTimeoutSeconds)) * 1000,
                minBodyBytesPerSecond: configuration.minBodyBytesPerSecond,
                bodyGraceMilliseconds: Int64(configuration.bodyRateGraceSeconds) * 1000),
            perSubnetLimit: configuration.perSubnetConnectionLimit, totalLimit: configuration.connectionLimit)
        // Every body limit a request can be rejected with: the default and the per-path ones.
        let bodyLimits = Set([configuration.maxBodyBytes] + configuration.bodyLimitsByPath.values)
        self.prebuilt = PrebuiltResponses(
            prepared: responder.preparedResponses,
            problems: headValidation.fixedProblems + bodyLimits.sorted().map { .payloadTooLarge(limit: $0) } + [
                .shuttingDown, .internalError,
            ],
            typePrefix: configuration.problemTypePrefix)
    }

    /// Logs how many `mhd.message` lines were dropped in a finished window (called by the
    /// reaper's sweep, so the count appears even when no later message carries it).
    func flushSuppressedLibraryMessages() {
        let suppressed = libraryMessages.takeSuppressed(now: ConnectionTracker.now())
        if suppressed > 0 { log(.warning, "mhd.messages_suppressed", ["count": .number(Double(suppressed))]) }
    }

    func log(_ level: HTTPServerLogEvent.Level, _ event: String, _ fields: JSONObject = JSONObject()) {
        logger(HTTPServerLogEvent(level: level, event: event, fields: fields))
    }
}
