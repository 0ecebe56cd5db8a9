import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One TCP connection's progress, written by its worker thread and read by the reaper.
///
/// libmicrohttpd's idle timeout restarts with every byte, so a client sending one byte every
/// few seconds holds its connection forever (slowloris). This records when the request head
/// became due and how fast the body arrives, so ``ConnectionTracker`` can cut connections
/// that are too slow. Lock-free: the hot path only stores atomics.
final class TrackedConnection: Sendable {
    /// What the connection is waiting for.
    enum Phase: Int {
        /// The (next) request head: cut when `headDeadline` passes.
        case awaitingHead = 0
        /// libmicrohttpd has parsed this request's line (the URI-log callback ran) but not yet
        /// called the access handler: the rest of the head is arriving or being parsed. Cut
        /// like `awaitingHead`; it tells the one connection a mid-head library rejection can
        /// belong to (see ``ConnectionTracker/connectionRejectedByLibrary(_:)``).
        case receivingHead = 3
        /// The request body: cut when it arrives slower than the minimum rate.
        case readingBody = 1
        /// The responder or the client's reading: not bounded here (MHD's idle timeout is).
        case responding = 2
    }

    /// The connection handle, for `MHD_get_connection_info` on the connection's own thread.
    let handle: ConnectionHandle
    /// The socket; valid while the tracker holds this record (MHD closes it only after
    /// `MHD_CONNECTION_NOTIFY_CLOSED`, which removes the record under the tracker's lock).
    let socket: Int32
    /// The worker thread that owns the connection (the one that accepted it).
    let thread: pthread_t
    let remoteAddress: String
    /// The client subnet this connection counts against; nil when it was not counted (an
    /// address that is not IP, or a connection refused for its subnet's limit).
    let countedSubnet: ClientSubnet?
    private let limits: ConnectionLimits
    private let phase = Atomic<Int>(Phase.awaitingHead.rawValue)
    /// Milliseconds on ``ConnectionTracker/now()`` after which an unfinished head is cut.
    private let headDeadline: Atomic<Int64>
    /// When the body phase began.
    private let bodyStart = Atomic<Int64>(0)
    private let bodyBytes = Atomic<Int>(0)
    /// The context of the connection's last request, kept for the next one (keep-alive
    /// connections run one request after another); cleared when the connection closes,
    /// since the context references this record.
    private let spareContext = Mutex<RequestContext?>(nil)

    init(
        handle: ConnectionHandle, socket: Int32, remoteAddress: String, limits: ConnectionLimits, now: Int64,
        countedSubnet: ClientSubnet? = nil
    ) {
        self.handle = handle
        self.socket = socket
        self.thread = pthread_self()
        self.remoteAddress = remoteAddress
        self.countedSubnet = countedSubnet
        self.limits = limits
        headDeadline = Atomic(now + limits.headTimeoutMilliseconds)
    }

    /// The URI-log callback: libmicrohttpd has parsed the request line. One atomic store on
    /// the hot path; the first access-handler call (``headReceived()``) clears the mark.
    func requestLineReceived() {
        phase.store(Phase.receivingHead.rawValue, ordering: .releasing)
    }

    /// The first access-handler call: the head is complete; the body (if any) starts now.
    func headReceived() {
        bodyBytes.store(0, ordering: .relaxed)
        bodyStart.store(ConnectionTracker.now(), ordering: .relaxed)
        phase.store(Phase.readingBody.rawValue, ordering: .releasing)
    }

    /// A body chunk of `count` bytes arrived.
    func bodyReceived(_ count: Int) {
        bodyBytes.add(count, ordering: .relaxed)
    }

    /// The last access-handler call for the body: the responder runs next.
    func bodyEnded() {
        phase.store(Phase.responding.rawValue, ordering: .releasing)
    }

    /// The response was sent (or the request failed): the next head is due after the idle
    /// timeout (which MHD enforces while no byte arrives) plus the head timeout.
    func requestCompleted() {
        let now = ConnectionTracker.now()
        headDeadline.store(now + limits.idleTimeoutMilliseconds + limits.headTimeoutMilliseconds, ordering: .relaxed)
        phase.store(Phase.awaitingHead.rawValue, ordering: .releasing)
    }

    /// The previous request's context when nothing else holds it any more, else nil.
    func reusableContext() -> RequestContext? {
        guard var context = spareContext.withLock({ spare in spare.take() }) else { return nil }
        // Never suspended, so only this thread ever referenced it; the check is a backstop.
        return isKnownUniquelyReferenced(&context) ? context : nil
    }

    /// Keeps a finished request's context for the next request of this connection.
    func keepForReuse(_ context: RequestContext) {
        spareContext.withLock { $0 = context }
    }

    /// The connection closed: drops the kept context (and with it the cycle back to this record).
    func dropReusableContext() {
        spareContext.withLock { $0 = nil }
    }

    /// What the connection waits for now.
    var currentPhase: Phase? { Phase(rawValue: phase.load(ordering: .acquiring)) }

    /// Why the connection must be cut at `now`, or nil.
    func overdue(now: Int64) -> ConnectionTracker.CutReason? {
        switch Phase(rawValue: phase.load(ordering: .acquiring)) {
        case .awaitingHead, .receivingHead:
            return now >= headDeadline.load(ordering: .relaxed) ? .headTimeout : nil
        case .readingBody:
            guard limits.minBodyBytesPerSecond > 0 else { return nil }
            let elapsed = now - bodyStart.load(ordering: .relaxed)
            guard elapsed > limits.bodyGraceMilliseconds else { return nil }
            // Average rate since the head: bytes/s ≥ minimum, in integers (ms × bytes/s / 1000).
            let expected = Int64(limits.minBodyBytesPerSecond) * elapsed / 1000
            return Int64(bodyBytes.load(ordering: .relaxed)) < expected ? .slowBody : nil
        case .responding, nil:
            return nil
        }
    }
}

/// A libmicrohttpd connection pointer that may be passed between threads; it is only
/// dereferenced (by MHD) on the connection's own worker thread.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The deadlines ``ConnectionTracker`` enforces, in milliseconds.
struct ConnectionLimits: Sendable {
    var headTimeoutMilliseconds: Int64
    var idleTimeoutMilliseconds: Int64
    var minBodyBytesPerSecond: Int
    var bodyGraceMilliseconds: Int64
}
