/// The sequence of calls libmicrohttpd makes for one request, as a pure state machine.
///
/// MHD calls the access handler once with the headers, once per body chunk, and once more
/// with no data at the end; after a suspension it calls again when resumed. Modelling that
/// here (as async-http-client does for its connections) keeps the body limits and the
/// "answer on the final call, never the first" rule testable without sockets. Each state
/// holds its own data (the body while it is read, the response while it waits for the
/// resume), so no field can outlive the state it belongs to; the server performs the
/// actions the events return.
struct RequestStateMachine: Sendable {
    enum State: Equatable, Sendable {
        /// Nothing seen yet: the next call carries the headers.
        case awaitingHeaders
        /// Headers accepted; body chunks (possibly none) until the final call.
        case readingBody(body: [UInt8])
        /// A chunked body passed the limit. MHD 0.9.75 refuses to queue a response while a
        /// body is still arriving, so the rest is read and dropped (up to `discardLimitBytes`)
        /// and the 413 is sent on the final call.
        case discardingBody(discarded: Int)
        /// The request is complete and handed to the responder.
        case responding
        /// The connection is suspended while an asynchronous responder works.
        case suspended
        /// Resumed with the response, which the next handler call sends.
        case resumed(HTTPResponse)
        /// Resumed after a taken-over connection ended: the next handler call closes it
        /// without a response (its bytes were the taker's).
        case resumedToClose
        /// A response was queued; later calls have nothing to do.
        case finished
    }

    /// What the access handler must do next.
    enum Action: Equatable, Sendable {
        /// The first call: collect and check the head, then report it with
        /// ``RequestStateMachine/headersReceived(problem:declaredContentLength:)``.
        case readHead
        /// Return `MHD_YES` and wait for more data.
        case readMore
        /// Queue this problem and close the connection (MHD discards the rest of the request).
        case reject(ProblemDetails)
        /// The request is complete: produce the response for this body.
        case respond(body: [UInt8])
        /// Queue this response, obtained while suspended.
        case send(HTTPResponse)
        /// Nothing to do (a call MHD should not make in this state); return `MHD_YES`.
        case ignore
        /// Close the connection without a response (`MHD_NO`): the client kept sending
        /// far more than allowed, and reading on would only burn the worker.
        case abortConnection
        /// Close the connection without a response (`MHD_NO`) and without a complaint: a
        /// taken-over connection (a tunnel) has ended.
        case closeTaken
    }

    private(set) var maxBodyBytes: Int
    /// How much of an oversized chunked body is read and dropped to be able to answer 413.
    let discardLimitBytes: Int
    private(set) var state: State = .awaitingHeaders

    init(maxBodyBytes: Int, discardLimitBytes: Int = 1 << 20) {
        self.maxBodyBytes = maxBodyBytes
        self.discardLimitBytes = discardLimitBytes
    }

    /// Replaces the body limit for this request (a per-path limit); only before the headers are processed.
    mutating func useBodyLimit(_ limit: Int) {
        guard state == .awaitingHeaders else { return }
        maxBodyBytes = limit
    }

    /// One access-handler call with the upload bytes MHD passed (empty on the first call,
    /// on the final call and after a resume). The machine, not the server, works out what
    /// the call means from its state, so the server only performs the returned action.
    mutating func handlerCalled(withUpload chunk: some Collection<UInt8>) -> Action {
        switch state {
        case .awaitingHeaders:
            return .readHead
        case .readingBody, .discardingBody:
            return chunk.isEmpty ? requestEnded() : bodyReceived(chunk)
        case .resumed, .resumedToClose:
            return handlerCalledAfterResume()
        case .responding, .suspended, .finished:
            return .ignore
        }
    }

    /// First call: the headers were checked (`problem` is the first violation, if any).
    /// A declared Content-Length above the limit is rejected before any body is read.
    mutating func headersReceived(problem: ProblemDetails?, declaredContentLength: Int?) -> Action {
        guard state == .awaitingHeaders else { return .ignore }
        if let problem {
            state = .finished
            return .reject(problem)
        }
        if let declaredContentLength, declaredContentLength > maxBodyBytes {
            state = .finished
            return .reject(.payloadTooLarge(limit: maxBodyBytes))
        }
        var body: [UInt8] = []
        if let declaredContentLength, declaredContentLength > 0 {
            body.reserveCapacity(declaredContentLength)
        }
        state = .readingBody(body: body)
        return .readMore
    }

    /// A body chunk arrived (chunked bodies have no declared length, so the cap is checked here).
    mutating func bodyReceived(_ chunk: some Collection<UInt8>) -> Action {
        switch state {
        case .readingBody(var body):
            guard chunk.count <= maxBodyBytes - body.count else {
                let overflow = chunk.count - (maxBodyBytes - body.count)
                state = .discardingBody(discarded: overflow)
                return overflow > discardLimitBytes ? abort() : .readMore
            }
            // The state lets go of the buffer first, so the append does not copy it.
            state = .responding
            body.append(contentsOf: chunk)
            state = .readingBody(body: body)
            return .readMore
        case .discardingBody(let discarded):
            let total = discarded + chunk.count
            state = .discardingBody(discarded: total)
            return total > discardLimitBytes ? abort() : .readMore
        case .awaitingHeaders, .responding, .suspended, .resumed, .resumedToClose, .finished:
            return .ignore
        }
    }

    private mutating func abort() -> Action {
        state = .finished
        return .abortConnection
    }

    /// The final call without data: the request is complete.
    mutating func requestEnded() -> Action {
        if case .discardingBody = state {
            state = .finished
            return .reject(.payloadTooLarge(limit: maxBodyBytes))
        }
        guard case .readingBody(let body) = state else { return .ignore }
        state = .responding
        return .respond(body: body)
    }

    /// The response was queued on the worker thread.
    mutating func responseSent() {
        state = .finished
    }

    /// The connection was suspended to wait for an asynchronous response.
    mutating func suspended() {
        guard state == .responding else { return }
        state = .suspended
    }

    /// The asynchronous response arrived; the connection is about to be resumed.
    mutating func resumed(with response: HTTPResponse) {
        guard state == .suspended else { return }
        state = .resumed(response)
    }

    /// A taken-over connection ended; it is about to be resumed, only to be closed.
    mutating func resumedToClose() {
        guard state == .suspended else { return }
        state = .resumedToClose
    }

    /// The handler was called after a resume: send the stored response.
    mutating func handlerCalledAfterResume() -> Action {
        if state == .resumedToClose {
            state = .finished
            return .closeTaken
        }
        guard case .resumed(let response) = state else { return .ignore }
        state = .finished
        return .send(response)
    }
}
