import CCurl
import Glibc
import HTTPTypes

/// Sets up a (reset) libcurl easy handle for one forwarded request.
enum EasyRequestOptions {
    /// Client fields libcurl writes itself from the URL and body (one array, not one per
    /// request): the outgoing `Host` is the decided URL's authority, and the framing
    /// (`Content-Length`) describes the body actually sent, never what the client claimed.
    private static let setByLibcurl = ["host", "content-length", "transfer-encoding", "expect"]

    /// Applies `request` to `easy`, its header lines laid out in `fieldLines` (the handle
    /// reads them until CURLOPT_HTTPHEADER is set again: keep them unchanged until then).
    /// - Parameter freshConnection: never reuse a pooled connection (the retry after a
    ///   pooled connection turned out to hold bytes nobody asked for).
    static func apply(
        _ request: UpstreamRequest, to easy: UnsafeMutableRawPointer, configuration: UpstreamClient.Configuration,
        resolveList: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer,
        loopContext: UnsafeMutableRawPointer, freshConnection: Bool, fieldLines: RequestFieldLines
    ) {
        curl_easy_reset(easy)
        // withCString: passing a Swift String as `const char *` copies it into a new array.
        _ = request.url.withCString { ccurl_set_string(easy, CURLOPT_URL, $0) }
        _ = ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        // Never through a proxy named by the environment (http_proxy, all_proxy): the daemon
        // connects to origins itself, so the address the destination guard judges is the origin's.
        // "No proxy for any host" is decided before libcurl reads the environment at all: with
        // CURLOPT_PROXY "" instead it still read no_proxy, NO_PROXY, http_proxy, all_proxy and
        // ALL_PROXY on every transfer (five getenv walks, ≈ 1.6k instructions per allowed request).
        _ = ccurl_set_string(easy, CURLOPT_NOPROXY, "*")
        _ = ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        // The URL was decided exactly as given: libcurl must not rewrite dot segments.
        _ = ccurl_set_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds)
        _ = ccurl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_set_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        // The loop tracks every upstream socket so that a pooled connection holding unread
        // bytes is never handed to the next request (see TransferLoop.connectionHasUnreadBytes).
        _ = ccurl_set_sockopt_callback(easy, curlSocketOpened)
        _ = ccurl_set_pointer(easy, CURLOPT_SOCKOPTDATA, loopContext)
        _ = ccurl_set_closesocket_callback(easy, curlSocketClosing)
        _ = ccurl_set_pointer(easy, CURLOPT_CLOSESOCKETDATA, loopContext)
        _ = ccurl_set_prereq_callback(easy, curlConnectionReady)
        _ = ccurl_set_pointer(easy, CURLOPT_PREREQDATA, context)
        if configuration.destinationGuard != nil {
            // Every socket is created by the guard's callback, which first sees the address.
            _ = ccurl_set_opensocket_callback(easy, curlOpenSocket)
            _ = ccurl_set_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
        }
        if freshConnection { _ = ccurl_set_long(easy, CURLOPT_FRESH_CONNECT, 1) }
        if resolveList != nil { _ = ccurl_set_list(easy, CURLOPT_RESOLVE, resolveList) }

        // Framing as the client sent it: a body (and so a Content-Length, libcurl's, equal to
        // the bytes sent) only when the client sent one, even an empty one; none otherwise.
        let method = request.method
        let headers = request.headers
        let hasBody = !request.body.isEmpty || headers[.contentLength] != nil || headers[.transferEncoding] != nil
        if method == "HEAD" {
            _ = ccurl_set_long(easy, CURLOPT_NOBODY, 1)
            // Bytes an origin sends after a HEAD head are discarded by libcurl, but they mean
            // the origin and the proxy disagree about the framing: never reuse that connection.
            _ = ccurl_set_long(easy, CURLOPT_FORBID_REUSE, 1)
        } else if hasBody {
            _ = ccurl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            if request.body.isEmpty {
                _ = ccurl_set_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                // COPYPOSTFIELDS copies, so the Swift array need not outlive this call.
                request.body.withUnsafeBytes { bytes in
                    _ = ccurl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
            if method != "POST" { _ = method.withCString { ccurl_set_string(easy, CURLOPT_CUSTOMREQUEST, $0) } }
        } else if method != "GET" {
            // No POSTFIELDS: libcurl then sends neither a body nor a Content-Length.
            _ = method.withCString { ccurl_set_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        }

        var via: String?
        // Filtered in place: no stripped copy of the fields (the responder already built one).
        let connection = HopByHop.ConnectionFields(headers)
        for field in headers where HopByHop.isForwarded(field.name, connection: connection, excluding: setByLibcurl) {
            // Defence in depth: the responder refuses such requests; nothing invalid is ever
            // written into the request libcurl sends.
            guard HeaderFieldSyntax.isValidName(field.name), HeaderFieldSyntax.isValidValue(field.value) else { continue }
            if HTTPFieldName.via.matches(field.name) {
                via = via.map { $0 + ", " + field.value } ?? field.value
                continue
            }
            // "Name;" is libcurl's spelling of a field with an empty value.
            fieldLines.append(field.name, field.value.isEmpty ? ";" : ": ", field.value)
        }
        fieldLines.append("Via", ": ", via.map { $0 + ", " + UpstreamClient.via } ?? UpstreamClient.via)
        // Suppress what libcurl would add on its own: Expect: 100-continue, Accept: */*, and
        // the form Content-Type it gives a POSTFIELDS body the client sent without one.
        fieldLines.append("Expect", ":", "")
        if headers[.accept] == nil { fieldLines.append("Accept", ":", "") }
        if hasBody, method != "HEAD", headers[.contentType] == nil {
            fieldLines.append("Content-Type", ":", "")
        }
        _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, fieldLines.build())
    }
}

/// CURLOPT_SOCKOPTFUNCTION: a new upstream socket (context: the loop).
private func curlSocketOpened(_ context: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ purpose: curlsocktype) -> Int32 {
    if let context { Unmanaged<TransferLoop>.fromOpaque(context).takeUnretainedValue().socketOpened(socket) }
    return Int32(CURL_SOCKOPT_OK)
}

/// CURLOPT_CLOSESOCKETFUNCTION: libcurl is done with a socket; closing it is ours to do.
private func curlSocketClosing(_ context: UnsafeMutableRawPointer?, _ socket: curl_socket_t) -> Int32 {
    if let context { Unmanaged<TransferLoop>.fromOpaque(context).takeUnretainedValue().socketClosing(socket) }
    return close(socket)
}

/// CURLOPT_PREREQFUNCTION: the connection (new or from the pool) is ready and nothing has
/// been sent on it yet. A destination the guard refuses (the second check, after the one at
/// connect) ends the transfer. Bytes already waiting on it answer no request of ours: abort,
/// and the loop retries on a fresh connection (libcurl closes an aborted transfer's connection).
private func curlConnectionReady(
    _ context: UnsafeMutableRawPointer?, _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ primaryPort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return Int32(CURL_PREREQFUNC_OK) }
    let exchange = Unmanaged<UpstreamExchange>.fromOpaque(context).takeUnretainedValue()
    guard connectedDestinationAdmitted(exchange, primaryIP: primaryIP, port: Int(primaryPort)) else {
        return Int32(CURL_PREREQFUNC_ABORT)
    }
    guard exchange.loop.connectionHasUnreadBytes(localPort: Int(localPort)) else { return Int32(CURL_PREREQFUNC_OK) }
    exchange.connectionHadUnreadBytes = true
    return Int32(CURL_PREREQFUNC_ABORT)
}

/// CURLOPT_WRITEFUNCTION: body bytes for the exchange (its count, a pause, or 0 to abort).
private func curlBodyReceived(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let exchange = Unmanaged<UpstreamExchange>.fromOpaque(context).takeUnretainedValue()
    exchange.loop.touched(exchange)
    let length = size * count
    guard let data, length > 0 else { return length }
    return exchange.receive(
        UnsafeRawBufferPointer(start: data, count: length), limit: exchange.loop.configuration.maxResponseBytes)
}

/// CURLOPT_HEADERFUNCTION: one header line per call, status line and blank line included.
private func curlHeaderReceived(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let context, let data else { return length }
    let exchange = Unmanaged<UpstreamExchange>.fromOpaque(context).takeUnretainedValue()
    exchange.loop.touched(exchange)
    let wasComplete = exchange.head.isComplete
    exchange.head.consume(line: UnsafeRawBufferPointer(start: data, count: length))
    if !wasComplete && exchange.head.isComplete { exchange.loop.headCompleted(exchange) }
    return length
}
