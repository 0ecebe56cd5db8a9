import CMHDShim
import CMicroHTTPD
import JSONSupport
import NetworkSockets

#if canImport(Glibc)
    import Glibc
#endif

/// Binds the listen socket and starts libmicrohttpd with the configured limits.
enum DaemonStarter {
    static func start(core: ServerCore) throws(HTTPServerError) -> RunningDaemon {
        let configuration = core.configuration
        try validate(configuration)
        // MHD sends with MSG_NOSIGNAL, but other code in the process (libcurl, stdio on a
        // closed pipe) may not: a daemon must never die of SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        FileDescriptorLimit.raise(toHold: configuration.connectionLimit, log: core.log)

        let listen: (socket: Int32, port: UInt16)
        if let inherited = configuration.inheritedListenSocket {
            listen = try inheritedSocket(inherited)
        } else {
            listen = try openListenSocket(configuration)
        }
        let retainedCore = Unmanaged.passRetained(core)
        let logTarget = UnsafeMutablePointer<cmhd_log_target>.allocate(capacity: 1)
        logTarget.initialize(to: cmhd_log_target(sink: mhdLibraryMessage, context: retainedCore.toOpaque()))

        let corePointer = retainedCore.toOpaque()
        let options = makeOptions(configuration, listenSocket: listen.socket, core: corePointer, logTarget: logTarget)
        // Suspend/resume for every responder kind: a streamed body (which any responder may
        // return) suspends its connection while the stream has nothing, and MHD aborts the
        // process when a connection is suspended without this flag.
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_ITC.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let started = options.withUnsafeBufferPointer { items in
            cmhd_start_daemon(flags, mhdAcceptPolicy, corePointer, mhdAccessHandler, corePointer, items.baseAddress)
        }
        guard let daemon = started else {
            if configuration.inheritedListenSocket == nil { close(listen.socket) }
            logTarget.deinitialize(count: 1)
            logTarget.deallocate()
            retainedCore.release()
            throw HTTPServerError.daemonStartFailed.with(
                detail: "libmicrohttpd refused to start on \(configuration.host):\(listen.port); see the mhd.message log events")
        }
        core.connections.start(
            log: { fields in core.log(.warning, "http.connections_cut", fields) },
            tick: { core.flushSuppressedLibraryMessages() })
        return RunningDaemon(
            daemon: daemon, listenSocket: listen.socket, ownsListenSocket: configuration.inheritedListenSocket == nil,
            port: listen.port, logTarget: logTarget, core: retainedCore)
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
        let positive: [(String, Int)] = [
            ("threadPoolSize", configuration.threadPoolSize), ("connectionLimit", configuration.connectionLimit),
            ("connectionMemoryLimitBytes", configuration.connectionMemoryLimitBytes),
            ("maxTargetBytes", configuration.maxTargetBytes), ("maxHeaderBytes", configuration.maxHeaderBytes),
            ("headTimeoutSeconds", configuration.headTimeoutSeconds),
            ("bodyRateGraceSeconds", configuration.bodyRateGraceSeconds),
        ]
        for (name, value) in positive where value <= 0 {
            throw HTTPServerError.invalidConfiguration.with(detail: "\(name) must be positive, got \(value)")
        }
        if configuration.bodyLimitsByPath.values.contains(where: { $0 < 0 }) {
            throw HTTPServerError.invalidConfiguration.with(detail: "bodyLimitsByPath values must not be negative")
        }
        if configuration.maxBodyBytes < 0 || configuration.perIPConnectionLimit < 0 || configuration.minBodyBytesPerSecond < 0
            || configuration.perSubnetConnectionLimit < 0
        {
            throw HTTPServerError.invalidConfiguration.with(
                detail:
                    "maxBodyBytes, perIPConnectionLimit, perSubnetConnectionLimit and minBodyBytesPerSecond must not be negative")
        }
        if let problem = configuration.connectionSharingProblem {
            throw HTTPServerError.invalidConfiguration.with(detail: problem)
        }
    }

    /// Checks that an inherited descriptor is a listening TCP socket and learns its port:
    /// serving a wrong descriptor (a file, a UDP socket) must fail at start, not later.
    /// Non-blocking, as MHD's epoll loops expect.
    private static func inheritedSocket(_ socket: Int32) throws(HTTPServerError) -> (socket: Int32, port: UInt16) {
        switch ListenSocket.adopt(socket, nonBlocking: true) {
        case .success(let listen): return (listen.descriptor, listen.port)
        case .failure(let error):
            throw HTTPServerError.socketFailure.with(detail: "inherited descriptor \(socket): \(error.reason)")
        }
    }

    private static func openListenSocket(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) -> (
        socket: Int32, port: UInt16
    ) {
        guard let address = IPAddress(literal: configuration.bindAddressLiteral) else {
            throw HTTPServerError.invalidAddress.with(
                detail: "\(configuration.host) is not an IPv4 or IPv6 address literal (or localhost)")
        }
        let backlog = Int32(clamping: min(configuration.connectionLimit, 4096))
        let error: SocketError
        switch ListenSocket.open(address: address, port: configuration.port, backlog: backlog, nonBlocking: true) {
        case .success(let listen): return (listen.descriptor, listen.port)
        case .failure(let failure): error = failure
        }
        let endpoint = "\(configuration.host):\(configuration.port)"
        switch error.kind {
        case .addressInUse:
            throw HTTPServerError.addressInUse.with(detail: "cannot listen on \(endpoint): address already in use")
        case .addressNotAvailable:
            throw HTTPServerError.addressNotAvailable.with(detail: "cannot listen on \(endpoint): \(error.reason)")
        case .permissionDenied:
            throw HTTPServerError.permissionDenied.with(detail: "cannot listen on \(endpoint): \(error.reason)")
        case .notAListeningSocket, .systemError:
            throw HTTPServerError.socketFailure.with(detail: "cannot listen on \(endpoint): \(error.reason)")
        }
    }

    private static func makeOptions(
        _ configuration: HTTPServerConfiguration, listenSocket: Int32,
        core: UnsafeMutableRawPointer, logTarget: UnsafeMutablePointer<cmhd_log_target>
    ) -> [MHD_OptionItem] {
        // MHD stores function pointers in the integer `value` slot of an option item.
        let logger: MHD_LogCallback? = cmhd_format_log_callback()
        let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? =
            mhdRequestStarted
        let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int =
            cmhd_unescape
        let completed: MHD_RequestCompletedCallback = mhdRequestCompleted
        let notifyConnection: MHD_NotifyConnectionCallback = mhdConnectionNotified
        return [
            // The logger goes first so that errors while parsing later options are reported.
            MHD_OptionItem(option: .EXTERNAL_LOGGER, value: unsafeBitCast(logger, to: Int.self), ptr_value: logTarget),
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(listenSocket), ptr_value: nil),
            MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: configuration.perIPConnectionLimit, ptr_value: nil),
            // 0 would mean "never time out", which lets slow clients hold connections forever.
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: max(1, configuration.connectionTimeoutSeconds), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimitBytes, ptr_value: nil),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: unsafeBitCast(uriLog, to: Int.self), ptr_value: core),
            // MHD's own unescaping, plus the end of the request line for attributing a query
            // that overflows the pool (see LibraryHeadRejection).
            MHD_OptionItem(option: .UNESCAPE_CALLBACK, value: unsafeBitCast(unescape, to: Int.self), ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), ptr_value: core),
            MHD_OptionItem(
                option: .NOTIFY_CONNECTION, value: unsafeBitCast(notifyConnection, to: Int.self), ptr_value: core),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
    }
}
