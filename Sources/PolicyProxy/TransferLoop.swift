import CCurl
import Dispatch
import Foundation
import Glibc
import HTTPTypes
import Synchronization

/// The thread that runs every upstream transfer on one libcurl multi handle.
///
/// One event loop instead of a blocked thread per request: libcurl multiplexes all
/// transfers with poll, keeps one shared connection cache (keep-alive reuse across
/// requests), and hands heads and body bytes to the ``UpstreamExchange``s as they arrive.
/// Other threads talk to the loop only through ``submit(_:)`` (a locked inbox plus
/// `curl_multi_wakeup`); everything else here belongs to the loop thread.
final class TransferLoop: @unchecked Sendable {
    // @unchecked: the mutable state below the inbox is confined to the loop thread.

    enum Command {
        case start(UpstreamExchange)
        case unpause(UpstreamExchange)
        case cancel(UpstreamExchange)
    }

    /// Connections libcurl's pool keeps (busy and idle) before it closes the oldest idle one.
    ///
    /// libcurl's default is four per easy handle *currently added*; the loop adds a handle
    /// only while its transfer runs, so between bursts the limit fell below the connections
    /// just used and each completed transfer closed pooled connections that the next burst
    /// opened again (≈ 1 connect and close per 100 allowed requests at 32 clients). A fixed
    /// bound keeps them, as nginx's `keepalive` does; past it the oldest idle one is closed.
    static let pooledConnections = 256

    /// Origin fields libmicrohttpd writes itself for the relayed response.
    private static let setByServer = ["content-length", "date"]

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    let configuration: UpstreamClient.Configuration
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let stopped = DispatchSemaphore(value: 0)
    private let timeoutNanoseconds: UInt64

    // Loop thread only. The fields read or written from inside libcurl's callbacks (every
    // header line, every socket) skip the runtime exclusivity check: the loop thread is their
    // only user and no access to them is nested in another.
    private var active: [UnsafeMutableRawPointer: UpstreamExchange] = [:]
    /// Easy handles between transfers, each with its header-line buffer (reused together).
    private var idleHandles: [(easy: UnsafeMutableRawPointer, fieldLines: RequestFieldLines)] = []
    /// Exchanges whose head completed during the current pass, delivered after it.
    @exclusivity(unchecked) private var completedHeads: [UpstreamExchange] = []
    /// The commands of the current pass, swapped with the inbox's array under the lock:
    /// the two arrays trade places every pass and both keep their capacity (a copy
    /// followed by `removeAll(keepingCapacity:)` allocated a new array on every pass).
    private var takenCommands: [Command] = []
    /// The heads delivered in the current pass, swapped with ``completedHeads`` the same way.
    private var deliveringHeads: [UpstreamExchange] = []
    private let resolveList: UnsafeMutablePointer<curl_slist>?
    /// No active transfer's deadline is earlier than this.
    private var nextDeadline = UInt64.max
    /// When the loop's current pass (commands, then `curl_multi_perform`) began, in uptime nanoseconds.
    @exclusivity(unchecked) private var passStarted: UInt64 = 0
    /// Every upstream socket libcurl has open (pooled or busy) → its local port, looked up
    /// on first use (0 until then).
    @exclusivity(unchecked) private var upstreamSockets: [Int32: Int] = [:]

    /// Starts the loop thread; nil when libcurl cannot create a multi handle.
    init?(configuration: UpstreamClient.Configuration) {
        guard let multi = curl_multi_init() else { return nil }
        // Not fatal if refused: only the pool's size (and so connection reuse) depends on it.
        _ = ccurl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, Self.pooledConnections)
        self.multi = multi
        self.configuration = configuration
        timeoutNanoseconds = UInt64(max(1, configuration.timeoutMilliseconds)) * 1_000_000
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in configuration.resolve { list = curl_slist_append(list, entry) }
        resolveList = list
        let thread = Thread { [self] in run() }
        thread.name = "navpolicyd.proxy.upstream"
        thread.start()
    }

    /// Hands a command to the loop thread. After ``stop(wait:)``, starts fail at once.
    func submit(_ command: Command) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.commands.append(command)
            // A non-empty inbox means a wake-up is already on its way. Waking under the lock
            // keeps it ahead of the multi handle's cleanup, which follows `stopping`.
            if inbox.commands.count == 1 { curl_multi_wakeup(multi) }
            return true
        }
        if !accepted, case .start(let exchange) = command {
            exchange.onHead(.failed("the proxy is shutting down", .internal))
        }
    }

    func unpause(_ exchange: UpstreamExchange) { submit(.unpause(exchange)) }

    func cancel(_ exchange: UpstreamExchange) { submit(.cancel(exchange)) }

    /// Ends every transfer (their clients get 502 or a cut body) and the thread.
    /// - Parameter wait: whether to block until the thread has exited.
    func stop(wait: Bool) {
        inbox.withLock { inbox in
            guard !inbox.stopping else { return }
            inbox.stopping = true
            curl_multi_wakeup(multi)
        }
        guard wait else { return }
        stopped.wait()
        stopped.signal()  // for any other caller waiting too
    }

    // MARK: - Loop thread

    private func run() {
        while true {
            passStarted = DispatchTime.now().uptimeNanoseconds
            let stopping = inbox.withLock { inbox in
                swap(&inbox.commands, &takenCommands)
                return inbox.stopping
            }
            for command in takenCommands { apply(command) }
            takenCommands.removeAll(keepingCapacity: true)
            if stopping { break }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinishedTransfers()
            deliverCompletedHeads()
            let now = DispatchTime.now().uptimeNanoseconds
            expireSilentTransfers(now: now)
            let wait = nextDeadline == .max ? 1_000 : Int32(clamping: min(1_000, (nextDeadline &- now) / 1_000_000 + 1))
            _ = curl_multi_poll(multi, nil, 0, nextDeadline <= now ? 0 : wait, nil)
        }
        shutDownTransfers()
        stopped.signal()
    }

    private func apply(_ command: Command) {
        switch command {
        case .start(let exchange):
            attach(exchange)
        case .unpause(let exchange):
            guard let easy = exchange.easy else { return }
            touched(exchange)
            nextDeadline = min(nextDeadline, exchange.deadline)
            // May call the write callback at once with the bytes it held back.
            _ = ccurl_unpause(easy)
        case .cancel(let exchange):
            guard exchange.easy != nil else { return }
            detach(exchange)
            exchange.finish(.failed)
            deliver(exchange, failure: .failed("the client went away", .clientGone))
        }
    }

    private func attach(_ exchange: UpstreamExchange, freshConnection: Bool = false) {
        guard let (easy, fieldLines) = idleHandles.popLast() ?? curl_easy_init().map({ ($0, RequestFieldLines()) }) else {
            deliver(exchange, failure: .failed("libcurl could not create a handle", .internal))
            return
        }
        EasyRequestOptions.apply(
            exchange.request, to: easy, configuration: configuration, resolveList: resolveList,
            context: Unmanaged.passUnretained(exchange).toOpaque(), loopContext: Unmanaged.passUnretained(self).toOpaque(),
            freshConnection: freshConnection, fieldLines: fieldLines)
        exchange.easy = easy
        exchange.fieldLines = fieldLines
        touched(exchange)
        nextDeadline = min(nextDeadline, exchange.deadline)
        active[easy] = exchange
        if curl_multi_add_handle(multi, easy) != CURLM_OK {
            detach(exchange)
            deliver(exchange, failure: .failed("libcurl could not start the transfer", .internal))
        }
    }

    /// Takes the transfer off the multi handle and keeps its easy handle for reuse.
    private func detach(_ exchange: UpstreamExchange) {
        guard let easy = exchange.easy else { return }
        if let observer = configuration.transferObserver {
            var uploaded: curl_off_t = 0
            if ccurl_get_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded) != CURLE_OK { uploaded = 0 }
            observer(Int(uploaded), exchange.received)
        }
        _ = curl_multi_remove_handle(multi, easy)
        active[easy] = nil
        exchange.easy = nil
        // libcurl keeps list pointers until the next setopt: clear before the lines are reused.
        _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, nil)
        let fieldLines = exchange.fieldLines ?? RequestFieldLines()
        exchange.fieldLines = nil
        if idleHandles.count < 1_024 { idleHandles.append((easy, fieldLines)) } else { curl_easy_cleanup(easy) }
    }

    /// Called by the header callback when an exchange's final head is complete.
    func headCompleted(_ exchange: UpstreamExchange) {
        completedHeads.append(exchange)
        guard let easy = exchange.easy else { return }
        // The connection goes back to libcurl's pool only when both sides agree where this
        // exchange ended. Not so when the origin answered before it had the whole request
        // (the rest may be read as another request, whose answer would reach the next
        // client), or when the answer has no body by definition (204, 304; HEAD is set up
        // that way) and libcurl would silently drop any bytes the origin sent anyway. Nor after a
        // malformed head: an origin that breaks the field syntax may break the framing too.
        var uploaded: curl_off_t = 0
        let status = exchange.head.status
        let answeredEarly =
            exchange.request.body.count > 0
            && (ccurl_get_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded) != CURLE_OK
                || uploaded < curl_off_t(exchange.request.body.count))
        if answeredEarly || status == 204 || status == 304 || exchange.head.isMalformed {
            _ = ccurl_set_long(easy, CURLOPT_FORBID_REUSE, 1)
        }
    }

    // MARK: - Upstream sockets (loop thread: libcurl calls these from its own calls)

    func socketOpened(_ socket: Int32) {
        upstreamSockets[socket] = 0
    }

    func socketClosing(_ socket: Int32) {
        upstreamSockets[socket] = nil
    }

    /// Whether the connection on `localPort` already has bytes (or its end) waiting before
    /// a request was sent on it.
    ///
    /// libcurl 7.88 reuses a pooled connection even when the origin sent more after the last
    /// response (an extra, unsolicited response): those bytes would be read as the answer to
    /// the next request, from a different client. Several sockets may share a local port
    /// (different origins); any of them being readable counts, erring towards a new connection.
    func connectionHasUnreadBytes(localPort: Int) -> Bool {
        var readable = false
        for (socket, port) in upstreamSockets {
            var known = port
            if known == 0 {
                known = Self.localPort(of: socket)
                upstreamSockets[socket] = known
            }
            guard known == localPort else { continue }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) != 0 { readable = true }
        }
        return readable
    }

    private static func localPort(of socket: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(socket, address, &length)
            }
        }
        guard result == 0 else { return -1 }
        // sin_port and sin6_port share offset 2, in network byte order.
        guard Int32(storage.ss_family) == AF_INET || Int32(storage.ss_family) == AF_INET6 else { return -1 }
        return withUnsafeBytes(of: &storage) { Int(UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self))) }
    }

    /// Refreshes the silence deadline (the origin sent something, or the transfer starts or
    /// resumes). The start of the loop's current pass stands in for now: everything runs
    /// within the pass, and reading the clock on every header line cost 3% of the allow path.
    func touched(_ exchange: UpstreamExchange) {
        exchange.deadline = passStarted + timeoutNanoseconds
    }

    private func collectFinishedTransfers() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            var code = CURLE_OK
            guard let easy = ccurl_done_message(message, &code), let exchange = active[easy] else { continue }
            detach(exchange)
            if code == CURLE_ABORTED_BY_CALLBACK, exchange.connectionHadUnreadBytes, !exchange.retriedOnFreshConnection {
                // Nothing was sent yet; libcurl closed the tainted connection. Once more, on a new one.
                exchange.connectionHadUnreadBytes = false
                exchange.retriedOnFreshConnection = true
                attach(exchange, freshConnection: true)
                continue
            }
            if code == CURLE_OK && exchange.head.isComplete {
                exchange.finish(.complete)
                completedHeads.append(exchange)
            } else {
                exchange.finish(.failed)
                deliver(exchange, failure: failure(for: code, exchange: exchange))
            }
        }
    }

    private func failure(for code: CURLcode, exchange: UpstreamExchange) -> UpstreamOutcome {
        if let address = exchange.refusedDestination { return .destinationRefused(address: address) }
        if exchange.overflowed { return .tooLarge(limit: configuration.maxResponseBytes) }
        if exchange.connectionHadUnreadBytes { return .failed("the origin sent bytes before it was asked anything", .protocol) }
        if code == CURLE_OK { return .failed("the origin sent no valid HTTP response", .protocol) }
        let reason = String(cString: curl_easy_strerror(code))
        return code == CURLE_OPERATION_TIMEDOUT ? .timedOut(reason) : .failed(reason, Self.kind(of: code))
    }

    /// The failure class of a libcurl result other than a timeout.
    static func kind(of code: CURLcode) -> UpstreamFailureKind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR,
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return .connect
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .reset
        case CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT:
            return .internal
        default:
            return .protocol
        }
    }

    /// Heads go out after the pass, so bytes and the end that arrived with them are already
    /// stored: a small response then leaves as one buffer instead of a stream.
    private func deliverCompletedHeads() {
        guard !completedHeads.isEmpty else { return }
        swap(&completedHeads, &deliveringHeads)
        for exchange in deliveringHeads { deliver(exchange, failure: nil) }
        deliveringHeads.removeAll(keepingCapacity: true)
    }

    /// Gives the exchange's client its answer, exactly once.
    private func deliver(_ exchange: UpstreamExchange, failure: UpstreamOutcome?) {
        guard !exchange.headDelivered else { return }
        exchange.headDelivered = true
        if let failure {
            exchange.onHead(failure)
            return
        }
        if exchange.hasFailed {
            exchange.onHead(.failed("the origin broke off the response", .reset))
            return
        }
        let head = exchange.head
        if head.isMalformed {
            // Never relayed, mended or not: the client gets 502 with this proxy's own fields.
            detach(exchange)
            exchange.finish(.failed)
            exchange.onHead(
                .failed(
                    "the origin's response head breaks the field syntax (a control character such as a bare CR, "
                        + "a field name that is not a token, or a line that is not a field)", .protocol))
            return
        }
        var headers = HopByHop.stripped(head.headers, excluding: Self.setByServer)
        headers.add(name: .via, value: UpstreamClient.via)
        let declared = head.declaredContentLength
        let limit = configuration.maxResponseBytes
        let isHead = exchange.request.method == "HEAD"
        // HEAD transfers no body: its Content-Length describes the GET's, so no limit applies.
        if limit > 0, !isHead, let declared, declared > limit {
            detach(exchange)
            exchange.finish(.failed)
            exchange.onHead(.tooLarge(limit: limit))
            return
        }
        if head.status == 204 || head.status == 304 {
            // No body by definition; libmicrohttpd frames these itself.
            exchange.onHead(.response(HTTPResponse(status: HTTPStatus(code: head.status), headers: headers)))
        } else if !isHead, let body = exchange.takeCompleteBody() {
            exchange.onHead(.response(HTTPResponse(status: HTTPStatus(code: head.status), headers: headers, body: body)))
        } else {
            exchange.contentLength = declared
            exchange.onHead(
                .response(HTTPResponse(status: HTTPStatus(code: head.status), headers: headers, bodyStream: exchange)))
        }
    }

    private func expireSilentTransfers(now: UInt64) {
        guard now >= nextDeadline else { return }
        var next = UInt64.max
        var expired: [UpstreamExchange] = []
        for exchange in active.values where !exchange.isPaused {
            if exchange.deadline <= now { expired.append(exchange) } else { next = min(next, exchange.deadline) }
        }
        nextDeadline = next
        for exchange in expired {
            detach(exchange)
            exchange.finish(.failed)
            deliver(
                exchange,
                failure: .timedOut("the origin sent nothing for \(configuration.timeoutMilliseconds) ms"))
        }
    }

    private func shutDownTransfers() {
        let waiting = inbox.withLock { inbox in
            defer { inbox.commands = [] }
            return inbox.commands
        }
        for case .start(let exchange) in waiting { deliver(exchange, failure: .failed("the proxy is shutting down", .internal)) }
        for exchange in Array(active.values) {
            detach(exchange)
            exchange.finish(.failed)
            deliver(exchange, failure: .failed("the proxy is shutting down", .internal))
        }
        for (easy, _) in idleHandles { curl_easy_cleanup(easy) }
        idleHandles = []
        curl_slist_free_all(resolveList)
        curl_multi_cleanup(multi)
    }
}
