import Glibc

/// A tunnel's handshake on its sockets, until the relay may start: the client's bytes go
/// through a ``ClientHandshake`` (the origin gets only the whole records it passes), the origin
/// is connected once the first ClientHello was accepted, and its answer to each ClientHello is
/// read far enough to tell a ServerHello from a HelloRetryRequest (``HelloRetry``) before it
/// is passed to the client; an answer that is neither closes the tunnel (an alert passed on first).
/// The relay itself (``TunnelRelay``) is not involved: after this, bytes move unread.
public enum TunnelHandshake {
    /// Why the tunnel was closed before the relay; `rawValue` is the refusal's metric reason.
    public enum Reason: String, Sendable {
        case clientHelloTimeout = "client-hello-timeout"
        case notTLS = "not-tls"
        case serverNameMismatch = "sni-mismatch"
        case connectFailed = "connect-failed"
        /// The origin answered a ClientHello with an alert, or with no ServerHello first.
        case originAnswer = "origin-answer"
    }

    public enum Outcome: Sendable {
        /// The relay may start on `origin` (the caller closes it); the bytes moved so far.
        case relay(origin: Int32, fromClient: Int, fromOrigin: Int)
        /// Closed before the relay, for this reason (to log and count).
        case refused(Reason, detail: String)
        /// The client went away while the proxy wrote to it: nothing to report.
        case gone
    }

    /// Runs the handshake for `client`. `firstDeadline` bounds the first ClientHello; once it is
    /// passed on, `answerMilliseconds` bounds the origin's answer and the client's second hello.
    /// `connect` opens the origin connection (nil: it failed).
    public static func run(
        client: Int32, handshake: ClientHandshake, firstDeadline: ContinuousClock.Instant, answerMilliseconds: Int,
        connect: () -> Int32?
    ) -> Outcome {
        var handshake = handshake
        var firstHello: [UInt8] = []
        while firstHello.isEmpty {
            switch receive(from: client, until: firstDeadline) {
            case .bytes(let bytes):
                switch handshake.receive(bytes) {
                case .success(let passed): firstHello = passed
                case .failure(let refusal): return refused(refusal)
                }
            case .timedOut:
                return .refused(.clientHelloTimeout, detail: "no whole ClientHello within the deadline")
            case .closed:
                return .refused(.notTLS, detail: "the client closed before a ClientHello")
            }
        }
        guard let origin = connect() else { return .refused(.connectFailed, detail: "could not connect to the origin") }
        let outcome = untilRelay(
            client: client, origin: origin, handshake: &handshake, firstHello: firstHello,
            deadline: ContinuousClock.now.advanced(by: .milliseconds(answerMilliseconds)))
        if case .relay = outcome { return outcome }
        close(origin)
        return outcome
    }

    /// From the first ClientHello passed on to the relay: the client's bytes still go through
    /// `handshake`, the origin's until its first answer can be told.
    private static func untilRelay(
        client: Int32, origin: Int32, handshake: inout ClientHandshake, firstHello: [UInt8],
        deadline: ContinuousClock.Instant
    ) -> Outcome {
        guard TunnelSockets.writeAll(firstHello, to: origin, until: deadline) else {
            return .refused(.connectFailed, detail: "the origin did not take the ClientHello")
        }
        var fromClient = firstHello.count
        var fromOrigin = 0
        // The origin's bytes not passed to the client yet; the start of its next answer.
        var answer: [UInt8] = []
        while handshake.phase != .relay {
            let awaitingOrigin = handshake.awaitsOrigin
            if awaitingOrigin, !answer.isEmpty {
                let reading = HelloRetry.read(answer, afterRetry: handshake.phase == .secondAnswer)
                if reading != .needMore {
                    // Whatever the client sent before the answer is in: a partial record there is refused.
                    switch passOn(from: client, to: origin, through: &handshake, until: deadline, waiting: false) {
                    case .success(let count): fromClient += count
                    case .failure(let failure): return failure.outcome
                    }
                    if let refusal = handshake.originAnswered(reading) {
                        // The origin's alert is the end of the tunnel: the client learns why, then it closes.
                        if refusal.kind == .originAlert, case .alert(let length) = reading {
                            _ = TunnelSockets.writeAll(Array(answer.prefix(length)), to: client, until: deadline)
                        }
                        return refused(refusal)
                    }
                    // A retry's record goes on alone: what follows it is read as the next answer.
                    let passed = if case .retry(let length) = reading { length } else { answer.count }
                    guard TunnelSockets.writeAll(Array(answer.prefix(passed)), to: client, until: deadline) else {
                        return .gone
                    }
                    fromOrigin += passed
                    answer.removeFirst(passed)
                    continue
                }
            }
            var polled = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                // Left out while no answer is awaited: a hang-up would wake every poll.
                pollfd(fd: awaitingOrigin ? origin : -1, events: Int16(POLLIN), revents: 0),
            ]
            let left = TunnelSockets.milliseconds(until: deadline)
            let ready = left > 0 ? poll(&polled, 2, Int32(clamping: left)) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                return awaitingOrigin
                    ? .refused(.connectFailed, detail: "the origin did not answer the ClientHello in time")
                    : .refused(.notTLS, detail: "after a HelloRetryRequest: no second ClientHello within the deadline")
            }
            if polled[0].revents != 0 {
                // Read before the origin's answer is looked at: what the client sent first is judged first.
                switch passOn(from: client, to: origin, through: &handshake, until: deadline, waiting: true) {
                case .success(let count): fromClient += count
                case .failure(let failure): return failure.outcome
                }
            }
            guard awaitingOrigin, handshake.awaitsOrigin, polled[1].revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(origin, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return .refused(.connectFailed, detail: "the origin closed before answering") }
            // Bounded: `HelloRetry.read` decides within `HelloRetry.maxBytes` (two records and a 6-byte one).
            answer += buffer[0..<count]
        }
        return .relay(origin: origin, fromClient: fromClient, fromOrigin: fromOrigin)
    }

    /// Reads what the client sent (at most one read when `waiting`, else all that is there now)
    /// through `handshake` and writes what it passes to the origin. Returns the bytes written.
    private static func passOn(
        from client: Int32, to origin: Int32, through handshake: inout ClientHandshake,
        until deadline: ContinuousClock.Instant, waiting: Bool
    ) -> Result<Int, Failure> {
        var written = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN { return .success(written) }
            guard count > 0 else {
                return .failure(Failure(.refused(.notTLS, detail: "the client closed during the handshake")))
            }
            switch handshake.receive(buffer[0..<count]) {
            case .success(let passed):
                guard TunnelSockets.writeAll(passed, to: origin, until: deadline) else {
                    return .failure(Failure(.refused(.connectFailed, detail: "the origin did not take the handshake")))
                }
                written += passed.count
            case .failure(let refusal):
                return .failure(Failure(refused(refusal)))
            }
            if waiting || handshake.phase == .relay { return .success(written) }
        }
    }

    /// An outcome carried as a `Result` failure.
    private struct Failure: Error {
        let outcome: Outcome
        init(_ outcome: Outcome) { self.outcome = outcome }
    }

    private static func refused(_ refusal: ClientHandshake.Refusal) -> Outcome {
        switch refusal.kind {
        case .notTLS, .framing: .refused(.notTLS, detail: refusal.detail)
        case .serverName: .refused(.serverNameMismatch, detail: refusal.detail)
        case .originAlert, .originAnswer: .refused(.originAnswer, detail: refusal.detail)
        }
    }

    private enum Received {
        case bytes(ArraySlice<UInt8>)
        case timedOut
        case closed
    }

    /// One read from `socket` by `deadline`.
    private static func receive(from socket: Int32, until deadline: ContinuousClock.Instant) -> Received {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = TunnelSockets.milliseconds(until: deadline)
            guard left > 0, TunnelSockets.wait(socket, for: Int16(POLLIN), milliseconds: left) else { return .timedOut }
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return .closed }
            return .bytes(buffer[0..<count])
        }
    }
}
