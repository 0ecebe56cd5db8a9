import CCurl
import HTTPTypes
import Synchronization

/// One forwarded request and its response on the way back.
///
/// libcurl's callbacks write the head and body into it on the ``TransferLoop`` thread; the
/// HTTP server reads the body from it (as an ``HTTPBodyStream``) on a worker thread. The
/// two sides share only ``Shared``, under a lock: the ``BodyRelayStateMachine`` (buffer,
/// end, backpressure) and the reader's waker. This class only drives the machine: it
/// feeds it each event and performs the action it returns (wake the reader, pause,
/// resume or cancel the transfer).
final class UpstreamExchange: HTTPBodyStream, @unchecked Sendable {
    // @unchecked: the fields marked "loop thread" are touched only by the TransferLoop's
    // thread; everything the reader sees is in `shared`.

    /// How the transfer ended, as the reader sees it.
    typealias End = BodyRelayStateMachine.End

    private struct Shared {
        var relay = BodyRelayStateMachine(highWater: UpstreamExchange.highWater, lowWater: UpstreamExchange.lowWater)
        var waker: (any HTTPBodyStreamWaker)?
    }

    static let highWater = 256 << 10
    static let lowWater = 64 << 10

    let request: UpstreamRequest
    /// Receives the head (or the failure) exactly once, on the loop thread.
    let onHead: @Sendable (UpstreamOutcome) -> Void
    let loop: TransferLoop
    private let shared = Mutex(Shared())

    // Loop thread only. The fields libcurl's callbacks touch on every header line and body
    // chunk are exempt from the runtime exclusivity check (`swift_beginAccess`/`endAccess`,
    // ≈ 1.5k instructions per allowed request in the header callback alone): only the loop
    // thread reads or writes them, and no access is nested in another (each is one mutating
    // call, read or assignment).
    @exclusivity(unchecked) var head = ResponseHead()
    var headDelivered = false
    /// The easy handle while the transfer is attached to the multi handle.
    @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
    /// The easy handle's header-line buffer while the transfer is attached (they travel together).
    var fieldLines: RequestFieldLines?
    /// Body bytes received so far (checked against maxResponseBytes).
    @exclusivity(unchecked) var received = 0
    var overflowed = false
    /// The connection libcurl picked had bytes waiting before the request was sent.
    var connectionHadUnreadBytes = false
    /// The address the destination guard refused (for the log), when it refused one.
    var refusedDestination: String?
    /// Whether the exchange already moved to a fresh connection once (for unread bytes).
    var retriedOnFreshConnection = false
    /// Uptime nanoseconds after which the origin has been silent too long (not checked while paused).
    @exclusivity(unchecked) var deadline: UInt64 = 0
    /// The declared length relayed as Content-Length; set on the loop thread before the
    /// head is delivered, read by the server only after.
    var contentLength: Int?

    init(request: UpstreamRequest, loop: TransferLoop, onHead: @escaping @Sendable (UpstreamOutcome) -> Void) {
        self.request = request
        self.loop = loop
        self.onHead = onHead
    }

    // MARK: libcurl's side (loop thread)

    /// Stores body bytes; returns what the write callback must return (the count taken,
    /// CURL_WRITEFUNC_PAUSE when the buffer is full, 0 to abort).
    func receive(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Int {
        if limit > 0, received + bytes.count > limit {
            overflowed = true
            return 0
        }
        let (action, waker) = shared.withLock { shared -> (BodyRelayStateMachine.ReceiveAction, (any HTTPBodyStreamWaker)?) in
            let action = shared.relay.receive(bytes)
            guard case .take(wakeReader: true) = action else { return (action, nil) }
            defer { shared.waker = nil }
            return (action, shared.waker)
        }
        switch action {
        case .take:
            received += bytes.count
            waker?.wake()
            return bytes.count
        case .pauseTransfer:
            return Int(CURL_WRITEFUNC_PAUSE)
        case .abortTransfer:
            return 0
        }
    }

    /// Whether the write callback paused the transfer (the loop exempts it from timeouts).
    var isPaused: Bool { shared.withLock { $0.relay.isPaused } }

    /// Records the end of the transfer and wakes a waiting reader.
    func finish(_ end: End) {
        let waker = shared.withLock { shared -> (any HTTPBodyStreamWaker)? in
            guard shared.relay.finish(end) else { return nil }
            defer { shared.waker = nil }
            return shared.waker
        }
        waker?.wake()
    }

    /// The whole body, when the transfer already completed (small responses are sent as
    /// one buffer instead of a stream).
    func takeCompleteBody() -> [UInt8]? {
        shared.withLock { $0.relay.takeCompleteBody() }
    }

    /// Whether the transfer failed (before the head was sent, that becomes a 502).
    var hasFailed: Bool { shared.withLock { $0.relay.end == .failed } }

    // MARK: the HTTP server's side (worker threads)

    func read(into buffer: UnsafeMutableRawBufferPointer, waker: any HTTPBodyStreamWaker) -> HTTPBodyStreamRead {
        let action = shared.withLock { shared -> BodyRelayStateMachine.ReadAction in
            let action = shared.relay.read(into: buffer)
            if action == .wait { shared.waker = waker }
            return action
        }
        switch action {
        case .copied(let count, let resumeTransfer):
            if resumeTransfer { loop.unpause(self) }
            return .bytes(count)
        case .end:
            return .end
        case .failed:
            return .failed
        case .wait:
            return .pending
        }
    }

    func close() {
        let running = shared.withLock { shared -> Bool in
            shared.waker = nil
            return shared.relay.close()
        }
        if running { loop.cancel(self) }
    }
}
