import CMHDShim
import CMicroHTTPD
import JSONSupport
import NetworkSockets
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: a thread pool of epoll loops with keep-alive,
/// hardened limits, and `application/problem+json` for every error it generates.
///
/// It knows nothing about what it serves: every complete, valid request goes to the
/// responder. Lifecycle: ``init(configuration:responder:logger:)`` → ``start()`` →
/// ``shutdown(drainTimeout:)``. Dropping a running server stops it without draining.
public final class HTTPServer: Sendable {
    private enum Lifecycle: Sendable {
        case idle
        case starting
        case running(RunningDaemon)
        /// Not accepting; requests in flight carry on until ``shutdown(until:)`` claims it.
        case draining(RunningDaemon)
        /// ``shutdown(until:)`` is waiting for requests in flight and stopping the daemon.
        case stopping(RunningDaemon)
        case stopped
    }

    private let core: ServerCore
    private let lifecycle = Mutex<Lifecycle>(.idle)
    /// The listen socket `MHD_quiesce_daemon` handed back (ours to close), or -1 when MHD
    /// still owns it and closes it itself in `MHD_stop_daemon`.
    private let quiescedListenSocket = Atomic<Int32>(-1)

    /// Creates a server that asks `responder` per request whether to answer at once on the
    /// worker thread, to suspend the connection while a task or an event loop produces the
    /// answer, or to take the connection over.
    /// - Parameters:
    ///   - configuration: address and limits.
    ///   - responder: called on worker threads for every valid request.
    ///   - logger: receives structured events (startup, rejections, libmicrohttpd messages).
    public init(
        configuration: HTTPServerConfiguration,
        responder: any HTTPResponder,
        logger: @escaping HTTPServerLogger = { _ in }
    ) {
        core = ServerCore(configuration: configuration, responder: responder, logger: logger)
    }

    deinit {
        shutdown(drainTimeout: .zero)
    }

    /// The configuration the server was created with.
    public var configuration: HTTPServerConfiguration { core.configuration }

    /// Binds the address and starts the worker threads.
    ///
    /// Ignores SIGPIPE process-wide. Can be called once.
    /// - Returns: the bound port (the kernel's choice when the configured port is 0).
    /// - Throws: ``HTTPServerError`` for a bad address, a port in use, or bad limits.
    @discardableResult
    public func start() throws(HTTPServerError) -> UInt16 {
        let mayStart = lifecycle.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard mayStart else { throw .alreadyStarted.with(detail: "start() was already called on this server") }
        let running: RunningDaemon
        do {
            running = try DaemonStarter.start(core: core)
        } catch {
            lifecycle.withLock { $0 = .idle }
            core.log(.error, "http.start_failed", ["reason": .string(error.detail)])
            throw error
        }
        lifecycle.withLock { $0 = .running(running) }
        let configuration = core.configuration
        core.log(
            .info, "http.started",
            [
                "host": .string(configuration.host), "port": .number(Double(running.port)),
                "threads": .number(Double(configuration.threadPoolSize)),
                "connectionLimit": .number(Double(configuration.connectionLimit)),
                "perIPConnectionLimit": .number(Double(configuration.perIPConnectionLimit)),
                "perSubnetConnectionLimit": .number(Double(configuration.perSubnetConnectionLimit)),
                "headTimeoutSeconds": .number(Double(configuration.headTimeoutSeconds)),
                "minBodyBytesPerSecond": .number(Double(configuration.minBodyBytesPerSecond)),
            ])
        return running.port
    }

    /// The bound port while running or draining, else nil.
    public var boundPort: UInt16? {
        lifecycle.withLock { state in
            switch state {
            case .running(let daemon), .draining(let daemon), .stopping(let daemon): daemon.port
            case .idle, .starting, .stopped: nil
            }
        }
    }

    /// Connections currently open (active and idle keep-alive), for a metrics gauge.
    public var openConnections: Int {
        lifecycle.withLock { state in
            switch state {
            case .running(let daemon), .draining(let daemon), .stopping(let daemon):
                Int(cmhd_current_connections(daemon.daemon))
            case .idle, .starting, .stopped: 0
            }
        }
    }

    /// Stops accepting new connections at once; requests in flight carry on.
    ///
    /// Quiesces libmicrohttpd and, for a socket the server bound itself, shuts the listen
    /// socket down so that the kernel refuses new connections immediately (a client or a
    /// load balancer fails over at once instead of waiting in the backlog for the whole
    /// drain). An inherited socket (``HTTPServerConfiguration/inheritedListenSocket``) keeps
    /// listening: new connections queue there for the next process. Every response from now
    /// on carries `Connection: close`. Idempotent; call ``shutdown(until:)`` afterwards.
    public func stopAccepting() {
        let claimed = lifecycle.withLock { state -> RunningDaemon? in
            guard case .running(let daemon) = state else { return nil }
            state = .draining(daemon)
            return daemon
        }
        guard let daemon = claimed else { return }
        core.isDraining.store(true, ordering: .relaxed)
        // MHD removes the socket from every worker's epoll set before returning it to us.
        let listenSocket = MHD_quiesce_daemon(daemon.daemon)
        quiescedListenSocket.store(listenSocket, ordering: .relaxed)
        let refused = daemon.ownsListenSocket && listenSocket >= 0 && ListenSocket.refuseNewConnections(listenSocket)
        core.log(.info, "http.accepting_stopped", ["newConnectionsRefused": .bool(refused)])
    }

    /// Stops the server gracefully, letting requests in flight finish for at most `drainTimeout`.
    ///
    /// The same as ``shutdown(until:)`` with a deadline `drainTimeout` from now.
    public func shutdown(drainTimeout: Duration) {
        shutdown(until: ContinuousClock.now.advanced(by: drainTimeout))
    }

    /// Stops the server gracefully.
    ///
    /// Stops accepting (``stopAccepting()``), lets requests in flight finish until
    /// `deadline` (their responses carry `Connection: close`, so clients reconnect
    /// elsewhere), answers still-suspended asynchronous requests with 503, cuts streamed
    /// bodies still being sent, then closes every connection and joins the workers. Several
    /// servers drain together by calling ``stopAccepting()`` on each, then this with one
    /// shared deadline. Idempotent: later or concurrent calls return at once. Blocks the
    /// caller, so call it from a signal-handling DispatchSource or the main thread, never
    /// from a responder (it would wait for itself).
    public func shutdown(until deadline: ContinuousClock.Instant) {
        stopAccepting()
        let claimed = lifecycle.withLock { state -> RunningDaemon? in
            guard case .draining(let daemon) = state else { return nil }
            state = .stopping(daemon)
            return daemon
        }
        guard let daemon = claimed else { return }
        let drained = waitForRequestsInFlight(until: deadline)
        let shuttingDown = ProblemDetails.shuttingDown.response(typePrefix: core.configuration.problemTypePrefix)
        let abandoned =
            core.suspendedConnections.closeAndResumeAll(with: shuttingDown) + core.streamedBodies.closeAll()
        if abandoned > 0 {
            // Give resumed connections a moment to send their 503 before the sockets close.
            _ = waitForRequestsInFlight(until: ContinuousClock.now.advanced(by: .milliseconds(250)))
        }
        let unfinished = core.requestsInFlight.load(ordering: .relaxed)
        // No lock is held here: MHD_stop_daemon joins workers that may still call into us.
        lifecycle.withLock { $0 = .stopped }
        MHD_stop_daemon(daemon.daemon)
        let core = core
        core.connections.stop { fields in core.log(.warning, "http.connections_cut", fields) }
        // After quiesce the listen socket belongs to us again (MHD no longer closes it); an
        // inherited one stays open in the process that passed it.
        let listenSocket = quiescedListenSocket.load(ordering: .relaxed)
        if listenSocket >= 0 { close(listenSocket) }
        daemon.releaseResources()
        core.log(
            .info, "http.stopped",
            [
                "drained": .bool(drained), "abandonedAsyncRequests": .number(Double(abandoned)),
                "unfinishedRequests": .number(Double(unfinished)),
            ])
    }

    /// Polls until no request is in flight or the deadline passes; returns true when drained.
    private func waitForRequestsInFlight(until deadline: ContinuousClock.Instant) -> Bool {
        while core.requestsInFlight.load(ordering: .relaxed) > 0 {
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
        return true
    }
}
