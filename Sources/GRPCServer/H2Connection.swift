import CNGHTTP2
import Glibc
import HTTPTypes

/// One accepted connection: an nghttp2 server session over a blocking socket, run to its end
/// on the connection's own thread (``run()``), which also runs the handler on each completed
/// request. It knows HTTP/2 only: what the streams carry is the handler's business.
///
/// nghttp2 does the framing, HPACK, flow control and protocol checks (pseudo-headers, stream
/// states, the rapid-reset and CONTINUATION limits of Debian's build); this class only keeps
/// per-stream buffers, enforces the listener's bounds and writes what nghttp2 queues. The
/// callbacks (``H2Callbacks``) reach it through nghttp2's `user_data`, an unretained pointer:
/// the session is deleted in ``run()`` before this object can go away, so no callback can
/// see a freed connection.
final class H2Connection {
    private let socket: Int32
    private let settings: H2Settings
    private let handler: H2Handler
    private let drainSignal: Int32
    private let remoteAddress: String
    private let event: H2EventSink
    private var session: OpaquePointer?
    /// Requests being received, by stream id.
    var streams: [Int32: H2Stream] = [:]
    /// Streams whose request ended, in arrival order: answered after `mem_recv` returns, not
    /// inside a callback.
    var completed: [Int32] = []
    /// Response bodies nghttp2 has yet to read (the data source callback), and whether trailers
    /// follow them.
    var outbound: [Int32: (bytes: [UInt8], offset: Int, trailers: HTTPHeaders?)] = [:]
    /// Responses queued but not yet sent whole (their END_STREAM frame not yet written), with
    /// when each was queued: one still here ``H2Settings/requestTimeoutSeconds``
    /// later is reset and counts as a timed-out stream (a peer that keeps its flow-control
    /// window shut takes no answer, and each one it leaves holds a stream and its body).
    var undelivered: [Int32: ContinuousClock.Instant] = [:]
    /// When a response was last sent whole (the accept, at first): the idle time runs from it.
    /// Nothing else counts: not bytes, or a peer sending a PING every few seconds would hold a
    /// connection (and its thread) for ever without asking anything (issue 30); not a stream
    /// opened, or one opened every few seconds and reset, or left unfinished, did (issue 38);
    /// not an answer queued, or a peer that never opens its flow-control window would hold it
    /// with requests whose answers it never takes (issue 38, the outside re-test).
    private var lastAnswered = ContinuousClock.now
    /// Streams reset for ``H2Settings/requestTimeoutSeconds`` (a request not whole, or a
    /// response not delivered, within it); at ``H2Settings/maxTimedOutStreamsPerConnection``
    /// the connection is closed.
    private var timedOutStreams = 0
    private var draining = false
    /// When the drain's first GOAWAY (the shutdown notice) went out; the final one, naming the
    /// last stream taken, follows ``noticePeriod`` later.
    private var noticeSentAt: ContinuousClock.Instant?
    /// Set by the drain's final GOAWAY, or by the one an idle connection gets while streams are
    /// still open: no stream is taken after it, and the connection ends once those are done.
    private var finalGoawaySent = false
    /// Time for requests the client sent before it saw the notice to arrive: one round trip
    /// and then some, on the networks between a proxy and the services it calls.
    static let noticePeriod = Duration.milliseconds(250)

    init(
        socket: Int32, settings: H2Settings, handler: @escaping H2Handler, drainSignal: Int32, remoteAddress: String,
        event: @escaping H2EventSink
    ) {
        self.socket = socket
        self.settings = settings
        self.handler = handler
        self.drainSignal = drainSignal
        self.remoteAddress = remoteAddress
        self.event = event
    }

    /// Called when the frame ending stream `id`'s response was sent: the request is answered.
    func delivered(_ id: Int32) {
        guard undelivered.removeValue(forKey: id) != nil else { return }
        lastAnswered = .now
    }

    func makeStream() -> H2Stream {
        H2Stream(openedAt: .now, maxHeaderListBytes: settings.maxHeaderListBytes, maxBodyBytes: settings.maxBodyBytes)
    }

    /// Serves the connection until the peer leaves, an error, a deadline or the drain ends it.
    /// The caller closes the socket afterwards.
    func run() {
        var timeout = timeval(tv_sec: settings.idleTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard checkPreface() else { return }
        guard let session = H2Callbacks.makeSession(for: self) else { return }
        self.session = session
        defer {
            nghttp2_session_del(session)
            self.session = nil
        }
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: settings.maxHeaderListBytes)),
            // One whole request body fits the stream window: no WINDOW_UPDATE round trip per request.
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: UInt32(clamping: settings.maxBodyBytes)),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else { return }
        guard receive(prefaceBytes) else { return }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            guard flush(session) else { return }
            if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 { return }
            if draining && !finalGoawaySent, let noticeSentAt, ContinuousClock.now - noticeSentAt >= Self.noticePeriod {
                // The final GOAWAY names the last stream taken: those still get answers, any
                // later one is refused and safe for the client to retry elsewhere.
                finalGoawaySent = true
                _ = nghttp2_submit_goaway(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
                    NGHTTP2_NO_ERROR.rawValue, nil, 0)
                continue
            }
            if finalGoawaySent && streams.isEmpty && outbound.isEmpty { return }
            switch wait() {
            case .readable:
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                guard receive(buffer[0..<count]) else {
                    _ = flush(session)  // the GOAWAY nghttp2 queued for a protocol error
                    return
                }
            case .drain:
                // Two GOAWAYs, as RFC 9113 section 6.8 advises for a graceful shutdown: first the
                // notice (last stream 2^31-1: nothing is refused yet, the client stops opening
                // streams here), then after a round trip the final one. A single GOAWAY would
                // refuse the requests already on the wire, which a client may not retry.
                draining = true
                noticeSentAt = .now
                _ = nghttp2_submit_shutdown_notice(session)
            case .timedOut:
                if let error = expire(session) {
                    _ = nghttp2_session_terminate_session(session, error.rawValue)
                    _ = flush(session)
                    return
                }
            case .failed:
                return
            }
        }
    }

    private enum Wakeup { case readable, drain, timedOut, failed }

    /// Waits for bytes, the drain signal, or the next deadline.
    private func wait() -> Wakeup {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        if !draining { fds.append(pollfd(fd: drainSignal, events: Int16(POLLIN), revents: 0)) }
        let result = poll(&fds, nfds_t(fds.count), nextDeadlineMilliseconds())
        if result < 0 { return errno == EINTR ? .timedOut : .failed }
        if result == 0 { return .timedOut }
        if fds.count > 1 && fds[1].revents != 0 { return .drain }
        return .readable
    }

    /// Milliseconds until the idle deadline or the oldest stream's deadline, or the final GOAWAY
    /// of a drain if that comes first. Once the connection is closing (the final GOAWAY sent),
    /// only the streams still open set it.
    private func nextDeadlineMilliseconds() -> Int32 {
        let now = ContinuousClock.now
        var deadline = lastAnswered.advanced(by: .seconds(settings.idleTimeoutSeconds))
        if let oldest = (streams.values.map(\.openedAt) + undelivered.values).min() {
            let streamDeadline = oldest.advanced(by: .seconds(settings.requestTimeoutSeconds))
            deadline = finalGoawaySent ? streamDeadline : min(deadline, streamDeadline)
        }
        if let noticeSentAt, !finalGoawaySent { deadline = min(deadline, noticeSentAt.advanced(by: Self.noticePeriod)) }
        let left = now.duration(to: deadline)
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds) + 1)
    }

    /// Resets streams past their deadline. Returns the GOAWAY error code when the connection
    /// must end now: `ENHANCE_YOUR_CALM` once ``H2Settings/maxTimedOutStreamsPerConnection``
    /// streams have timed out, `NO_ERROR` when no stream was answered for `idleTimeoutSeconds`
    /// and none is open. Idle with streams open, it sends the GOAWAY naming the last stream
    /// taken and lets those finish (each within its own deadline), so a request that arrived
    /// just before is still answered, and a peer opening streams gains nothing.
    private func expire(_ session: OpaquePointer) -> nghttp2_error_code? {
        let now = ContinuousClock.now
        let limit = Duration.seconds(settings.requestTimeoutSeconds)
        let late = streams.filter { now - $0.value.openedAt >= limit }.map(\.key)
        for id in late { streams[id] = nil }
        resetTimedOut(session, late, event: "request_timeout")
        let stuck = undelivered.filter { now - $0.value >= limit }.map(\.key)
        for id in stuck {
            undelivered[id] = nil
            outbound[id] = nil
        }
        resetTimedOut(session, stuck, event: "response_timeout")
        if !(late.isEmpty && stuck.isEmpty) && timedOutStreams >= max(1, settings.maxTimedOutStreamsPerConnection) {
            event("connection_closed", ["reason": "stream_timeouts", "timedOutStreams": "\(timedOutStreams)"])
            return NGHTTP2_ENHANCE_YOUR_CALM
        }
        guard now - lastAnswered >= .seconds(settings.idleTimeoutSeconds) else { return nil }
        // Answers still queued do not keep a silent peer either: one that neither reads nor
        // opens its flow-control window for the idle time is gone (else the loop would wake
        // every millisecond for it, forever).
        if streams.isEmpty { return NGHTTP2_NO_ERROR }
        if !finalGoawaySent {
            finalGoawaySent = true
            draining = true
            _ = nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
                NGHTTP2_NO_ERROR.rawValue, nil, 0)
        }
        return nil
    }

    /// Resets `ids` (`CANCEL`), each counted toward ``H2Settings/maxTimedOutStreamsPerConnection``.
    private func resetTimedOut(_ session: OpaquePointer, _ ids: [Int32], event: String) {
        for id in ids {
            timedOutStreams += 1
            self.event(event, ["stream": "\(id)"])
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        }
    }

    /// Whether `count` more request bytes fit the connection's buffer
    /// (``H2Settings/maxBufferedBytesPerConnection``) beside what its open streams hold.
    func acceptsBuffered(_ count: Int) -> Bool {
        var held = count
        for stream in streams.values { held += stream.body.count }
        return held <= settings.maxBufferedBytesPerConnection
    }

    /// The connection preface bytes already read by ``checkPreface()``.
    private var prefaceBytes: ArraySlice<UInt8> = []

    /// Reads until the 24-byte client preface is known to be there or known not to be: HTTP/2
    /// with prior knowledge is all this port speaks, and an HTTP/1.1 client gets a `505` it can
    /// read instead of binary frames it cannot.
    private func checkPreface() -> Bool {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: preface.count)
        // The preface is the connection's head: it gets the request deadline from the accept (in
        // total, so a byte at a time does not stretch it), not the idle time, so a connection
        // that sends nothing gives its per-address slot back as soon as a stalled request would.
        let deadline = ContinuousClock.now.advanced(by: .seconds(settings.requestTimeoutSeconds))
        while received.count < preface.count {
            guard received.elementsEqual(preface.prefix(received.count)) else { break }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var fds = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            // Whole milliseconds left, rounded up: the seconds alone made a deadline under a
            // second away a 1 ms wait, which ended a 1 s preface deadline at once.
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&fds, 1, milliseconds) > 0 else { return false }
            let want = preface.count - received.count
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, want, 0) }
            guard count > 0 else { return false }
            received.append(contentsOf: chunk[0..<count])
        }
        guard received.elementsEqual(preface.prefix(received.count)), received.count == preface.count else {
            event("not_http2", [:])
            let body = settings.notHTTP2Body
            let response =
                "HTTP/1.1 505 HTTP Version Not Supported\r\ncontent-type: text/plain\r\ncontent-length: \(body.utf8.count)\r\n"
                + "connection: close\r\n\r\n" + body
            _ = writeAll(Array(response.utf8)[...])
            return false
        }
        prefaceBytes = received[...]
        return true
    }

    /// Hands bytes to nghttp2, then answers the requests they completed.
    private func receive(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let session else { return false }
        let consumed = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        guard consumed >= 0 else {
            event("protocol_error", ["reason": String(cString: nghttp2_strerror(Int32(consumed)))])
            return false
        }
        let ready = completed
        completed.removeAll(keepingCapacity: true)
        for id in ready {
            guard let stream = streams.removeValue(forKey: id) else { continue }
            undelivered[id] = .now
            respond(session, stream: id, with: handler(stream.request(remoteAddress: remoteAddress), stream.overflow))
        }
        return true
    }

    /// Queues `response`: HEADERS, then DATA and trailers when it has them (a response with
    /// neither is one HEADERS frame ending the stream). A status outside 100–599 or a streamed
    /// body, which this transport does not send, is answered 500 instead.
    private func respond(_ session: OpaquePointer, stream id: Int32, with response: HTTPResponse) {
        guard response.status.isValid, case .bytes(let body) = response.body else {
            return respond(session, stream: id, with: HTTPResponse(status: .internalServerError))
        }
        let status = response.status.description
        guard !body.isEmpty || response.trailers.count > 0 else {
            return submit(session, id, status: status, response.headers, body: false)
        }
        outbound[id] = (body, 0, response.trailers.count == 0 ? nil : response.trailers)
        submit(session, id, status: status, response.headers, body: true)
    }

    private func submit(_ session: OpaquePointer, _ id: Int32, status: String, _ headers: HTTPHeaders, body: Bool) {
        let result = H2Callbacks.withHeaderList(status: status, headers) { list, count in
            guard body else { return nghttp2_submit_response(session, id, list, count, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: H2Callbacks.readBody)
            return nghttp2_submit_response(session, id, list, count, &provider)
        }
        if result != 0 {
            outbound[id] = nil
            undelivered[id] = nil
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
    }

    /// Frames nghttp2 queued, gathered so that one `send` carries them all: `mem_send` hands out
    /// about a frame at a time, and a response with trailers is three frames (HEADERS, DATA,
    /// trailers), so writing each as it comes would cost three system calls per request.
    private var pending: [UInt8] = []

    /// Writes everything nghttp2 has queued; false when the peer is gone or does not read.
    private func flush(_ session: OpaquePointer) -> Bool {
        pending.removeAll(keepingCapacity: true)
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { return false }
            guard count > 0, let data else { break }
            pending.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            // Past 64 KiB, write what there is: the buffer stays bounded whatever is queued.
            if pending.count >= 65_536 {
                guard writeAll(pending[...]) else { return false }
                pending.removeAll(keepingCapacity: true)
            }
        }
        return pending.isEmpty || writeAll(pending[...])
    }

    private func writeAll(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            let written = send(socket, rest.base.baseAddress.map { $0 + rest.startIndex }, rest.count, Int32(MSG_NOSIGNAL))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            rest = rest.dropFirst(written)
        }
        return true
    }

    private func writeAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { writeAll($0[...]) }
    }
}
