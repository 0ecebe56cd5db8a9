import CCurl
import HTTPTypes
import Synchronization

/// One forwarded request and its response on the way back.
///
/// libcurl's callbacks write the head and body into it on the ``TransferLoop`` thread; the
/// HTTP server reads the body from it (as an ``HTTPBodyStream``) on a worker thread. The
/// two sides share only ``Shared``, under a lock: a bounded buffer, the end of the
/// transfer and the reader's waker. When the buffer holds ``highWater`` bytes the write
/// callback pauses the transfer, and the reader un-pauses it once it drained below
/// ``lowWater``: a slow client slows the origin down instead of growing memory.
final class UpstreamExchange: HTTPBodyStream, @unchecked Sendable {
    // @unchecked: the fields marked "loop thread" are touched only by the TransferLoop's
    // thread; everything the reader sees is in `shared`.

    /// How the transfer ended, as the reader sees it.
    enum End: Equatable {
        case complete
        case failed
    }

    private struct Shared {
        var buffer: [UInt8] = []
        var readIndex = 0
        var end: End?
        var waker: (any HTTPBodyStreamWaker)?
        var paused = false
        var closed = false
    }

    static let highWater = 256 << 10
    static let lowWater = 64 << 10

    let request: UpstreamRequest
    /// Receives the head (or the failure) exactly once, on the loop thread.
    let onHead: @Sendable (UpstreamOutcome) -> Void
    let loop: TransferLoop
    private let shared = Mutex(Shared())

    // Loop thread only.
    var head = ResponseHead()
    var headDelivered = false
    /// The easy handle while the transfer is attached to the multi handle.
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// Body bytes received so far (checked against maxResponseBytes).
    var received = 0
    var overflowed = false
    /// The connection libcurl picked had bytes waiting before the request was sent.
    var connectionHadUnreadBytes = false
    /// Whether the exchange already moved to a fresh connection once (for unread bytes).
    var retriedOnFreshConnection = false
    /// Uptime nanoseconds after which the origin has been silent too long (not checked while paused).
    var deadline: UInt64 = 0
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
        var waker: (any HTTPBodyStreamWaker)?
        let taken = shared.withLock { shared -> Int in
            if shared.closed { return 0 }
            if shared.buffer.count - shared.readIndex >= Self.highWater {
                shared.paused = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            shared.buffer.append(contentsOf: bytes)
            waker = shared.waker
            shared.waker = nil
            return bytes.count
        }
        if taken == bytes.count { received += taken }
        waker?.wake()
        return taken
    }

    /// Whether the write callback paused the transfer (the loop exempts it from timeouts).
    var isPaused: Bool { shared.withLock { $0.paused } }

    /// Records the end of the transfer and wakes a waiting reader.
    func finish(_ end: End) {
        let waker = shared.withLock { shared -> (any HTTPBodyStreamWaker)? in
            if shared.end == nil { shared.end = end }
            defer { shared.waker = nil }
            return shared.waker
        }
        waker?.wake()
    }

    /// The whole body, when the transfer already completed (small responses are sent as
    /// one buffer instead of a stream).
    func takeCompleteBody() -> [UInt8]? {
        shared.withLock { shared -> [UInt8]? in
            guard shared.end == .complete else { return nil }
            defer { shared.buffer = [] }
            return shared.readIndex == 0 ? shared.buffer : Array(shared.buffer[shared.readIndex...])
        }
    }

    /// Whether the transfer failed (before the head was sent, that becomes a 502).
    var hasFailed: Bool { shared.withLock { $0.end == .failed } }

    // MARK: the HTTP server's side (worker threads)

    func read(into buffer: UnsafeMutableRawBufferPointer, waker: any HTTPBodyStreamWaker) -> HTTPBodyStreamRead {
        var resume = false
        let result = shared.withLock { shared -> HTTPBodyStreamRead in
            let available = shared.buffer.count - shared.readIndex
            guard available > 0 else {
                switch shared.end {
                case .complete: return .end
                case .failed: return .failed
                case nil:
                    shared.waker = waker
                    return .pending
                }
            }
            let count = min(available, buffer.count)
            shared.buffer.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[shared.readIndex..<shared.readIndex + count]))
            }
            shared.readIndex += count
            if shared.readIndex == shared.buffer.count {
                shared.buffer.removeAll(keepingCapacity: true)
                shared.readIndex = 0
            } else if shared.readIndex >= Self.lowWater {
                shared.buffer.removeFirst(shared.readIndex)
                shared.readIndex = 0
            }
            if shared.paused, shared.buffer.count - shared.readIndex <= Self.lowWater {
                shared.paused = false
                resume = true
            }
            return .bytes(count)
        }
        if resume { loop.unpause(self) }
        return result
    }

    func close() {
        let finished = shared.withLock { shared -> Bool in
            shared.closed = true
            shared.buffer = []
            shared.waker = nil
            return shared.end != nil
        }
        if !finished { loop.cancel(self) }
    }
}
