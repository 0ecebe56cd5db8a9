import CMHDShim
import CMicroHTTPD
import Dispatch
import JSONSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every open connection of one server, and the reaper that cuts the slow ones.
///
/// libmicrohttpd 0.9.75 has no deadline for a request head or a body rate. Connections are
/// registered from `MHD_OPTION_NOTIFY_CONNECTION`; a timer sweeps them and calls
/// `shutdown(SHUT_RDWR)` on the overdue ones, so MHD sees the end of the stream and closes
/// them itself on its own thread. The check and the shutdown happen under the same lock as
/// the removal in `MHD_CONNECTION_NOTIFY_CLOSED`, which MHD calls before it closes the
/// socket (`MHD_cleanup_connections`): a descriptor number the kernel has already reused
/// for another socket can never be shut down.
final class ConnectionTracker: Sendable {
    /// Why a connection was cut.
    enum CutReason: Sendable {
        case headTimeout
        case slowBody
    }

    /// Counts of cuts and refusals not yet logged, and when the last `http.connections_cut`
    /// was written.
    private struct CutLog {
        var headTimeouts = 0
        var slowBodies = 0
        var lastRemoteAddress = ""
        /// Connections refused because their subnet held `perSubnetConnectionLimit` already.
        var subnetRefusals = 0
        var lastRefusedSubnet = ""
        var lastLogged: Int64?
        var isEmpty: Bool { headTimeouts == 0 && slowBodies == 0 && subnetRefusals == 0 }
    }

    /// At most one `http.connections_cut` event per this many milliseconds: a slowloris
    /// with thousands of connections must not flood the log.
    static let logIntervalMilliseconds: Int64 = 5_000
    private static let sweepIntervalMilliseconds = 250

    let limits: ConnectionLimits
    private let connections = Mutex<[ObjectIdentifier: TrackedConnection]>([:])
    /// Connections per client subnet (a lock of its own: taken on accept and close only).
    private let subnets: Mutex<SubnetAdmission>
    private let cutLog = Mutex(CutLog())
    private let timer = Mutex<SweepTimer?>(nil)
    private let queue = DispatchQueue(label: "navpolicyd.http.connection-reaper")

    /// `perSubnetLimit`: connections one IPv4 /24 or IPv6 /64 may hold; 0 = no limit.
    /// `totalLimit`: the listener's connection limit, whose last eighth ``SubnetAdmission``
    /// keeps for networks with few connections.
    init(limits: ConnectionLimits, perSubnetLimit: Int = 0, totalLimit: Int = 0) {
        self.limits = limits
        subnets = Mutex(SubnetAdmission(limit: perSubnetLimit, totalLimit: totalLimit))
    }

    /// Monotonic milliseconds; the coarse clock (a few ms resolution) costs no syscall.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// The accept policy (`MHD_AcceptPolicyCallback`): whether a peer in `subnet` may
    /// connect, asked before libmicrohttpd sets the connection up, so a refused one costs
    /// no pool. Only a pre-check: two threads may both pass it for the last slot, and
    /// MHD can still drop an accepted connection before it starts, so the count is taken
    /// in ``connectionStarted(_:socket:remoteAddress:subnet:)``.
    func accepts(_ subnet: ClientSubnet?) -> Bool {
        guard let subnet else { return true }
        guard subnets.withLock({ $0.allows(subnet) }) else {
            noteSubnetRefusal(subnet)
            return false
        }
        return true
    }

    /// `MHD_CONNECTION_NOTIFY_STARTED`, on the worker thread that accepted the connection.
    ///
    /// A connection whose subnet is already at its limit (it passed the accept policy in
    /// a race for the last slot) is registered uncounted and shut down at once: MHD reads
    /// the end of the stream and closes it through the normal path.
    func connectionStarted(
        _ handle: ConnectionHandle, socket: Int32, remoteAddress: String, subnet: ClientSubnet? = nil
    ) -> TrackedConnection {
        let admitted = subnet.map { subnet in subnets.withLock { $0.admit(subnet) } } ?? true
        let tracked = TrackedConnection(
            handle: handle, socket: socket, remoteAddress: remoteAddress, limits: limits, now: Self.now(),
            countedSubnet: admitted ? subnet : nil)
        connections.withLock { $0[ObjectIdentifier(tracked)] = tracked }
        if !admitted, let subnet {
            // MHD closes the socket only after NOTIFY_CLOSED, which cannot run before this returns.
            _ = shutdown(socket, Int32(SHUT_RDWR))
            noteSubnetRefusal(subnet)
        }
        return tracked
    }

    /// `MHD_CONNECTION_NOTIFY_CLOSED`: from now on the socket may be closed and reused.
    func connectionClosed(_ tracked: TrackedConnection) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(tracked)) }
        if let subnet = tracked.countedSubnet { subnets.withLock { $0.release(subnet) } }
    }

    /// Connections `subnet` holds now.
    func connections(of subnet: ClientSubnet) -> Int { subnets.withLock { $0.count(of: subnet) } }

    private func noteSubnetRefusal(_ subnet: ClientSubnet) {
        cutLog.withLock { pending in
            pending.subnetRefusals += 1
            pending.lastRefusedSubnet = subnet.description
        }
    }

    /// Connections currently registered.
    var count: Int { connections.withLock { $0.count } }

    /// Starts the periodic sweep; `log` receives the aggregated cut events.
    /// `tick` runs after every sweep.
    func start(log: @escaping @Sendable (JSONObject) -> Void, tick: @escaping @Sendable () -> Void = {}) {
        let source = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(Self.sweepIntervalMilliseconds)
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        source.setEventHandler { [self] in
            sweep(now: Self.now(), log: log)
            tick()
        }
        timer.withLock { $0 = SweepTimer(source: source) }
        source.resume()
    }

    /// Stops the sweep and writes the cuts not yet logged.
    func stop(log: @escaping @Sendable (JSONObject) -> Void) {
        let stopped = timer.withLock { current -> SweepTimer? in
            defer { current = nil }
            return current
        }
        stopped?.source.cancel()
        // Wait for a sweep in progress: after this no event handler runs.
        queue.sync {}
        if let fields = pendingCuts(now: Self.now(), force: true) { log(fields) }
    }

    /// Cuts every overdue connection; returns how many were cut for each reason.
    @discardableResult
    func sweep(now: Int64, log: (JSONObject) -> Void) -> (headTimeouts: Int, slowBodies: Int) {
        var cutHeads = 0
        var cutBodies = 0
        var lastAddress = ""
        connections.withLock { all in
            for tracked in all.values {
                guard let reason = tracked.overdue(now: now) else { continue }
                // MHD reads EOF, closes the connection and calls NOTIFY_CLOSED, which
                // removes it; until then later sweeps shut it down again, harmlessly.
                guard shutdown(tracked.socket, Int32(SHUT_RDWR)) == 0 else { continue }
                switch reason {
                case .headTimeout: cutHeads += 1
                case .slowBody: cutBodies += 1
                }
                lastAddress = tracked.remoteAddress
            }
        }
        if cutHeads + cutBodies > 0 {
            cutLog.withLock { pending in
                pending.headTimeouts += cutHeads
                pending.slowBodies += cutBodies
                pending.lastRemoteAddress = lastAddress
            }
        }
        if let fields = pendingCuts(now: now, force: false) { log(fields) }
        return (cutHeads, cutBodies)
    }

    /// The fields of the next `http.connections_cut` event, if one is due.
    private func pendingCuts(now: Int64, force: Bool) -> JSONObject? {
        cutLog.withLock { pending -> JSONObject? in
            guard !pending.isEmpty else { return nil }
            if !force, let last = pending.lastLogged, now - last < Self.logIntervalMilliseconds { return nil }
            var fields: JSONObject = [
                "headTimeouts": .number(Double(pending.headTimeouts)),
                "slowBodies": .number(Double(pending.slowBodies)),
                "lastRemoteAddress": .string(pending.lastRemoteAddress),
                "headTimeoutSeconds": .number(Double(limits.headTimeoutMilliseconds) / 1000),
                "minBodyBytesPerSecond": .number(Double(limits.minBodyBytesPerSecond)),
            ]
            if pending.subnetRefusals > 0 {
                fields.append("subnetLimitRefusals", .number(Double(pending.subnetRefusals)))
                fields.append("lastRefusedSubnet", .string(pending.lastRefusedSubnet))
                fields.append("perSubnetConnectionLimit", .number(Double(subnets.withLock { $0.limit })))
            }
            pending = CutLog(lastLogged: now)
            return fields
        }
    }

    /// The connection of the calling worker thread that libmicrohttpd is rejecting at `stage`
    /// (it is logging why right now), or nil when it cannot be told apart from the others.
    ///
    /// Only connections of the calling thread are examined (each belongs to the worker that
    /// accepted it, and MHD handles it only there), so reading their state is race-free.
    /// - ``LibraryHeadRejection/Stage/headComplete`` (Content-Length, cookies): the one
    ///   connection whose request line was parsed and for which MHD reports a head size
    ///   (state at least HEADERS_RECEIVED) with nothing queued; MHD moves every other such
    ///   connection on to the access handler in the same pass, so at most one qualifies.
    /// - ``LibraryHeadRejection/Stage/requestLineParsed`` while this thread is still inside
    ///   a request line (`cmhd_request_line_owner`): its query parameters overflowed the
    ///   pool, and the shim names the connection exactly.
    /// - ``LibraryHeadRejection/Stage/requestLineParsed`` otherwise (a 431 from the pool
    ///   running out for a header field or a longer line): MHD fails mid-head, before
    ///   it reports a head size. The source is a connection whose request line was parsed
    ///   (``TrackedConnection/Phase/receivingHead``) or, for trailer fields, one reading a
    ///   body; accepted only when the first kind is the only one of either on this thread.
    ///   Otherwise another client could be answered (and cut) for someone else's head.
    /// - ``LibraryHeadRejection/Stage/beforeRequestLine`` (414): the request line itself did
    ///   not fit, so no callback has marked the connection: never attributable.
    func connectionRejectedByLibrary(_ stage: LibraryHeadRejection.Stage) -> TrackedConnection? {
        if stage == .beforeRequestLine { return nil }
        let current = pthread_self()
        // Inside a request line (query parameters overflowing): the C shim knows which.
        let parsingRequestLine = stage == .requestLineParsed ? cmhd_request_line_owner() : nil
        // One overflow names its connection once: a mark left set (MHD gave up on the line
        // before unescaping its path) must not name that connection for a later head.
        if parsingRequestLine != nil { cmhd_request_line_started(nil, nil) }
        return connections.withLock { all -> TrackedConnection? in
            if let parsingRequestLine {
                // Compared as addresses, never dereferenced: only a registered record is used.
                return all.values.first { Unmanaged.passUnretained($0).toOpaque() == parsingRequestLine }
            }
            var headComplete: TrackedConnection?
            var headCompleteCount = 0
            var midHead: TrackedConnection?
            var possibleSources = 0
            for tracked in all.values where pthread_equal(tracked.thread, current) != 0 {
                switch tracked.currentPhase {
                case .receivingHead:
                    possibleSources += 1
                    guard cmhd_queued_status(tracked.handle.pointer) == 0 else { continue }
                    midHead = tracked
                    if cmhd_request_header_size(tracked.handle.pointer) > 0 {
                        headCompleteCount += 1
                        headComplete = tracked
                    }
                case .readingBody:
                    // A chunked body's trailer fields go through the same pool and the same
                    // 431 path.
                    possibleSources += 1
                case .awaitingHead, .responding, nil:
                    continue
                }
            }
            if headCompleteCount > 0 || stage == .headComplete {
                return headCompleteCount == 1 ? headComplete : nil
            }
            return possibleSources == 1 ? midHead : nil
        }
    }

    /// Writes `response` straight to the connection's socket and shuts it down, so the
    /// error libmicrohttpd is about to queue never reaches the wire (its own answer to a
    /// malformed Content-Length carries the status line and headers twice).
    ///
    /// Only for a connection from ``connectionRejectedByLibrary(_:)``: nothing of this
    /// request has been written yet, and the earlier responses on the connection were
    /// sent completely before MHD read this head. The socket is non-blocking and empty, so
    /// one `send` takes a problem response whole.
    func answerDirectly(_ tracked: TrackedConnection, with bytes: [UInt8]) -> Bool {
        connections.withLock { all -> Bool in
            guard all[ObjectIdentifier(tracked)] != nil else { return false }
            let sent = bytes.withUnsafeBytes { buffer in
                send(tracked.socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            _ = shutdown(tracked.socket, Int32(SHUT_RDWR))
            return sent == bytes.count
        }
    }
}

/// The reaper's timer source; `@unchecked Sendable` because Dispatch sources are
/// thread-safe but not annotated.
private struct SweepTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
}
