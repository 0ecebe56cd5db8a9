import CCurl
import HTTPServer
import Synchronization

/// Forwards requests to origins with libcurl, reusing connections.
///
/// Each transfer borrows an easy handle from a pool and returns it afterwards; libcurl
/// keeps each handle's connections open, so consecutive requests to an origin reuse a
/// keep-alive connection. ``forward(_:)`` blocks its thread for the whole exchange: call it
/// from a thread that may block, never from a libmicrohttpd worker or the Swift
/// concurrency pool.
///
/// Responses are buffered up to ``Configuration/maxResponseBytes`` before they are sent
/// on, because the HTTP layer queues complete responses.
public final class UpstreamClient: Sendable {
    /// Limits and name overrides for forwarding.
    public struct Configuration: Sendable {
        /// Time to establish the TCP (and TLS) connection.
        public var connectTimeoutMilliseconds: Int
        /// Time for the whole exchange, connect included.
        public var timeoutMilliseconds: Int
        /// Largest response body relayed; larger ones become 502.
        public var maxResponseBytes: Int
        /// `HOST:PORT:ADDRESS` entries, as curl's `--resolve`.
        public var resolve: [String]

        /// Creates a configuration.
        public init(
            connectTimeoutMilliseconds: Int = 5_000, timeoutMilliseconds: Int = 30_000,
            maxResponseBytes: Int = 16 << 20, resolve: [String] = []
        ) {
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
            self.maxResponseBytes = maxResponseBytes
            self.resolve = resolve
        }
    }

    /// The `Via` value this proxy adds to requests and responses (RFC 9110 §7.6.3).
    public static let via = "1.1 navpolicyd"

    private let configuration: Configuration
    private let idle = Mutex<[EasyHandle]>([])

    /// Creates a client; libcurl is initialised process-wide on first use.
    public init(configuration: Configuration) {
        _ = Self.globalInit
        self.configuration = configuration
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Forwards `request` and waits for the complete answer (blocking).
    public func forward(_ request: UpstreamRequest) -> UpstreamOutcome {
        let handle = idle.withLock { $0.popLast() } ?? EasyHandle()
        guard let easy = handle.pointer else { return .failed("libcurl could not create a handle") }
        let transfer = Transfer(limit: configuration.maxResponseBytes)
        let code = withExtendedLifetime(transfer) {
            perform(request, on: easy, transfer: transfer)
        }
        // A handle is reused only after a clean exchange; a broken one may hold a bad connection.
        if code == CURLE_OK { idle.withLock { if $0.count < 256 { $0.append(handle) } } }
        if transfer.overflowed { return .tooLarge(limit: configuration.maxResponseBytes) }
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            return code == CURLE_OPERATION_TIMEDOUT ? .timedOut(reason) : .failed(reason)
        }
        var status = 0
        var statusCode = 0
        _ = ccurl_get_long(easy, CURLINFO_RESPONSE_CODE, &statusCode)
        status = statusCode
        guard (100...599).contains(status) else { return .failed("the origin sent no valid status line") }
        var headers = HopByHop.stripped(transfer.headers, excluding: ["content-length", "date"])
        headers.add(name: "Via", value: Self.via)
        return .response(HTTPResponse(status: status, headers: headers, body: transfer.body))
    }

    private func perform(_ request: UpstreamRequest, on easy: UnsafeMutableRawPointer, transfer: Transfer) -> CURLcode {
        curl_easy_reset(easy)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = ccurl_set_string(easy, CURLOPT_URL, request.url)
        _ = ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        // The URL was decided exactly as given: libcurl must not rewrite dot segments.
        _ = ccurl_set_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds)
        _ = ccurl_set_long(easy, CURLOPT_TIMEOUT_MS, configuration.timeoutMilliseconds)
        _ = ccurl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_set_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderReceived)
        _ = ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)

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
        let forwarded = HopByHop.stripped(request.headers, excluding: ["host", "content-length", "expect", "via"])
        for field in forwarded {
            // "Name;" is libcurl's spelling of a field with an empty value.
            let line = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
            headerList = curl_slist_append(headerList, line)
        }
        var via = request.headers.values(for: "Via")
        via.append(Self.via)
        headerList = curl_slist_append(headerList, "Via: " + via.joined(separator: ", "))
        // Suppress what libcurl would add on its own: Expect: 100-continue, Accept: */*.
        headerList = curl_slist_append(headerList, "Expect:")
        if request.headers["Accept"] == nil { headerList = curl_slist_append(headerList, "Accept:") }
        _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, headerList)

        var resolveList: UnsafeMutablePointer<curl_slist>?
        for entry in configuration.resolve { resolveList = curl_slist_append(resolveList, entry) }
        if resolveList != nil { _ = ccurl_set_list(easy, CURLOPT_RESOLVE, resolveList) }

        let code = curl_easy_perform(easy)
        // libcurl keeps list pointers until the next setopt: clear before freeing.
        _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, nil)
        _ = ccurl_set_list(easy, CURLOPT_RESOLVE, nil)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        return code
    }
}

/// One libcurl easy handle; its connection cache is what makes keep-alive reuse work.
/// Used by one transfer at a time (the pool hands it out exclusively), hence unchecked.
final class EasyHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?

    init() { pointer = curl_easy_init() }

    deinit { if let pointer { curl_easy_cleanup(pointer) } }
}

/// The response of one transfer as libcurl delivers it, on the thread running the transfer.
final class Transfer {
    let limit: Int
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }
}

/// CURLOPT_WRITEFUNCTION: appends body bytes; returning less than given aborts the transfer.
private func curlBodyReceived(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard transfer.body.count + length <= transfer.limit else {
        transfer.overflowed = true
        return 0
    }
    if let data, length > 0 {
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// CURLOPT_HEADERFUNCTION: one header line per call; a status line starts a new head
/// (after a 100 Continue), so only the final response's fields are kept.
private func curlHeaderReceived(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let context, let data else { return length }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        transfer.headers = HTTPHeaders()
        return length
    }
    guard let colon = line.firstIndex(of: ":") else { return length }
    let name = String(line[..<colon])
    let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t", "\r", "\n", "\r\n"])
    if !name.isEmpty, !name.contains(" ") { transfer.headers.add(name: name, value: value) }
    return length
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
