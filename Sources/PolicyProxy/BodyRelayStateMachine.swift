/// The buffer between libcurl's write callback and the HTTP server's reader of one proxied
/// response body, as a state machine: pure (no lock, no libcurl, no waker), each event
/// returns the action its driver (``UpstreamExchange``) performs — take or pause the
/// transfer, wake the reader, resume or cancel the transfer.
///
/// Backpressure: once ``highWater`` bytes wait unread, the writer is told to pause the
/// transfer; the reader resumes it when it has drained to ``lowWater`` or less. A slow
/// client therefore slows the origin down instead of growing memory.
struct BodyRelayStateMachine {
    /// How the transfer ended, as the reader sees it.
    enum End: Equatable {
        case complete
        case failed
    }

    /// What the write callback does with the bytes it was offered.
    enum ReceiveAction: Equatable {
        /// All bytes were buffered; wake the reader when it was waiting.
        case take(wakeReader: Bool)
        /// The buffer is full: pause the transfer (`CURL_WRITEFUNC_PAUSE`); nothing was taken.
        case pauseTransfer
        /// The reader is gone: abort the transfer (return 0).
        case abortTransfer
    }

    /// What a read produced.
    enum ReadAction: Equatable {
        /// `count` bytes were copied; resume the paused transfer when `resumeTransfer`.
        case copied(count: Int, resumeTransfer: Bool)
        /// The body is complete and everything was read.
        case end
        /// The transfer failed and everything received was read.
        case failed
        /// Nothing to read yet: keep the waker; ``finish(_:)`` or ``receive(_:)`` will say when.
        case wait
    }

    let highWater: Int
    let lowWater: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private(set) var end: End?
    private var readerWaiting = false
    /// Whether the writer was told to pause and the reader has not resumed it yet.
    private(set) var isPaused = false
    private var closed = false

    init(highWater: Int, lowWater: Int) {
        self.highWater = highWater
        self.lowWater = lowWater
    }

    /// Bytes received and not read yet.
    var unread: Int { buffer.count - readIndex }

    /// The write callback offers `bytes`.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> ReceiveAction {
        if closed { return .abortTransfer }
        if unread >= highWater {
            isPaused = true
            return .pauseTransfer
        }
        buffer.append(contentsOf: bytes)
        defer { readerWaiting = false }
        return .take(wakeReader: readerWaiting)
    }

    /// The transfer ended (the first end counts); returns whether to wake the reader.
    mutating func finish(_ end: End) -> Bool {
        if self.end == nil { self.end = end }
        defer { readerWaiting = false }
        return readerWaiting
    }

    /// The reader asks for up to `destination.count` bytes.
    mutating func read(into destination: UnsafeMutableRawBufferPointer) -> ReadAction {
        guard unread > 0 else {
            switch end {
            case .complete: return .end
            case .failed: return .failed
            case nil:
                readerWaiting = true
                return .wait
            }
        }
        let count = min(unread, destination.count)
        buffer.withUnsafeBytes { bytes in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[readIndex..<readIndex + count]))
        }
        readIndex += count
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= lowWater {
            // Compacted only past lowWater bytes, so a slow reader does not move the buffer
            // on every small read.
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        var resume = false
        if isPaused, unread <= lowWater {
            isPaused = false
            resume = true
        }
        return .copied(count: count, resumeTransfer: resume)
    }

    /// The whole body, when the transfer already completed (small responses are sent as one
    /// buffer instead of a stream); nil otherwise.
    mutating func takeCompleteBody() -> [UInt8]? {
        guard end == .complete else { return nil }
        let body = readIndex == 0 ? buffer : Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        return body
    }

    /// The reader is done (body sent, or the client went away): drops the buffer; returns
    /// whether the transfer is still running and must be cancelled.
    mutating func close() -> Bool {
        closed = true
        buffer = []
        readIndex = 0
        readerWaiting = false
        return end == nil
    }
}
