import CCurl
import HTTPServer

/// Sets up a (reset) libcurl easy handle for one forwarded request.
enum EasyRequestOptions {
    /// Client fields libcurl writes itself from the URL and body (one array, not one per request).
    private static let setByLibcurl = ["host", "content-length", "expect"]

    /// Applies `request` to `easy`; returns the header list the handle now points to,
    /// which the caller frees after the transfer.
    static func apply(
        _ request: UpstreamRequest, to easy: UnsafeMutableRawPointer, configuration: UpstreamClient.Configuration,
        resolveList: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer
    ) -> UnsafeMutablePointer<curl_slist>? {
        curl_easy_reset(easy)
        _ = ccurl_set_string(easy, CURLOPT_URL, request.url)
        _ = ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        // The URL was decided exactly as given: libcurl must not rewrite dot segments.
        _ = ccurl_set_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds)
        _ = ccurl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_set_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        if resolveList != nil { _ = ccurl_set_list(easy, CURLOPT_RESOLVE, resolveList) }

        let method = request.method
        if method == "HEAD" {
            _ = ccurl_set_long(easy, CURLOPT_NOBODY, 1)
        } else if method != "GET" || !request.body.isEmpty {
            // COPYPOSTFIELDS copies, so the Swift array need not outlive this call.
            _ = ccurl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            request.body.withUnsafeBytes { bytes in
                _ = ccurl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            if method != "POST" { _ = ccurl_set_string(easy, CURLOPT_CUSTOMREQUEST, method) }
        }

        var headerList: UnsafeMutablePointer<curl_slist>?
        var via: String?
        for field in HopByHop.stripped(request.headers, excluding: setByLibcurl) {
            if HTTPHeaders.namesMatch(field.name, "Via") {
                via = via.map { $0 + ", " + field.value } ?? field.value
                continue
            }
            // "Name;" is libcurl's spelling of a field with an empty value.
            let line = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
            headerList = curl_slist_append(headerList, line)
        }
        headerList = curl_slist_append(headerList, "Via: " + (via.map { $0 + ", " } ?? "") + UpstreamClient.via)
        // Suppress what libcurl would add on its own: Expect: 100-continue, Accept: */*.
        headerList = curl_slist_append(headerList, "Expect:")
        if request.headers["Accept"] == nil { headerList = curl_slist_append(headerList, "Accept:") }
        _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, headerList)
        return headerList
    }
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
