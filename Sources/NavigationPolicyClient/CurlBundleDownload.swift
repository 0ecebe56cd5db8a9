#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NavigationPolicy

    /// A bundle download over libcurl's easy interface: the client's own transport on Linux, used
    /// when the app passes no ``NavigationPolicyClient/Configuration/session``.
    ///
    /// Corelibs `URLSession` cannot be held to ``BundleDownload``'s rules there: it ignores the
    /// `.cancel` disposition, queues body chunks with no backpressure and has libcurl inflate a
    /// compressed body, so a hostile answer's memory was its own (attack round 9, F3), and a
    /// chunked answer ending with a trailer field stopped the process in corelibs Foundation
    /// itself (attack round 10, F3). Here the same rules hold where libcurl lets them be
    /// enforced: the head is judged by ``BundleDownload/refusal(of:limit:)`` in the header
    /// callback, before libcurl reads a body byte, and a refusal returns 0 there, which ends the
    /// transfer; nothing is ever inflated (no `CURLOPT_ACCEPT_ENCODING`, content decoding off);
    /// the body goes straight from libcurl's buffer into the destination file, and the write
    /// callback ends the transfer the moment more than the limit arrived. No redirect is
    /// followed, http and https only, TLS verified, the whole transfer within `deadline`.
    enum CurlBundleDownload {
        /// Runs `request` (its URL, header fields and `timeoutInterval`, the idle timeout) on a
        /// thread of its own, as the easy interface blocks, and returns how it ended.
        static func run(
            _ request: URLRequest, limit: Int, deadline: TimeInterval, destination: @escaping BundleDownload.Destination
        ) async -> BundleDownload.Outcome {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        returning: CurlBundleTransfer.perform(request, limit: limit, deadline: deadline, destination: destination)
                    )
                }
                thread.start()
            }
        }
    }

    /// libcurl's global state, set up once per process, before the first transfer (thread-safe
    /// since libcurl 7.84, and counted, so an app's own libcurl use is unaffected).
    private let curlGlobalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The state of one transfer, reached from libcurl's callbacks through an unretained pointer;
    /// only the thread running `curl_easy_perform` touches it.
    private final class CurlBundleTransfer {
        /// The most a response head (status line and fields) may hold: libcurl bounds each line,
        /// not their number, and every field is kept until the head is judged.
        static let maximumHeadBytes = 256 << 10

        let easy: UnsafeMutableRawPointer
        let url: URL
        let limit: Int
        let destination: BundleDownload.Destination
        var httpVersion: String?
        /// Whether the next head line is a status line: the first line, and the one after a 1xx's head.
        var atHeadStart = true
        var fields: [(name: String, value: String)] = []
        var headBytes = 0
        var response: HTTPURLResponse?
        var body: (url: URL, handle: FileHandle)?
        var received = 0
        /// Set when a callback ends the transfer (it then returns 0: libcurl reports a write error).
        var ending: BundleDownload.Outcome?
        /// Where libcurl's body callback hands the bytes (``receive(_:)``); owned here, so it
        /// lives through `curl_easy_perform`, and unowned back, so the two are no cycle.
        private(set) lazy var bodySink = CurlBodySink { [unowned self] in self.receive($0) }

        init(easy: UnsafeMutableRawPointer, url: URL, limit: Int, destination: @escaping BundleDownload.Destination) {
            self.easy = easy
            self.url = url
            self.limit = limit
            self.destination = destination
        }

        static func perform(
            _ request: URLRequest, limit: Int, deadline: TimeInterval, destination: @escaping BundleDownload.Destination
        ) -> BundleDownload.Outcome {
            guard curlGlobalInit, let url = request.url, let easy = curl_easy_init() else {
                return .failed("libcurl could not start a transfer")
            }
            defer { curl_easy_cleanup(easy) }
            var headers: UnsafeMutablePointer<curl_slist>?
            defer { curl_slist_free_all(headers) }
            for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
                // A line break would start another field: the app's token is never sent split.
                guard !(name + value).unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    return .failed("the request field \(BundleText.shown(name)) holds a line break; not sent")
                }
                headers = curl_slist_append(headers, "\(name): \(value)")
            }
            let transfer = CurlBundleTransfer(easy: easy, url: url, limit: limit, destination: destination)
            var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
            let started = ContinuousClock.now
            let code = withExtendedLifetime(transfer) {
                errorText.withUnsafeMutableBufferPointer { errorBuffer -> CURLcode in
                    transfer.configure(request, deadline: deadline, headers: headers, errorBuffer: errorBuffer.baseAddress)
                    return curl_easy_perform(easy)
                }
            }
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // The deadline's timeout, not the idle one's: reported as BundleDownload's timer does.
            let timedOut = code == CURLE_OPERATION_TIMEDOUT && elapsed >= deadline
            return transfer.finish(code, detail: timedOut ? BundleDownload.deadlineReason(deadline) : detail)
        }

        /// The options of every bundle transfer: BundleDownload's rules in libcurl's terms.
        private func configure(
            _ request: URLRequest, deadline: TimeInterval, headers: UnsafeMutablePointer<curl_slist>?,
            errorBuffer: UnsafeMutablePointer<CChar>?
        ) {
            let context = Unmanaged.passUnretained(self).toOpaque()
            _ = url.absoluteString.withCString { ccurl_set_string(easy, CURLOPT_URL, $0) }
            _ = ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = ccurl_set_long(easy, CURLOPT_HTTPGET, 1)
            // A proxy's answer to CONNECT (one from the environment) is not the origin's head.
            _ = ccurl_set_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
            // The token is for the configured origin only (attack round 9, F4).
            _ = ccurl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            // Bytes as they came: what is counted against the limit is what is written.
            _ = ccurl_set_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
            _ = ccurl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
            _ = ccurl_set_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
            let deadlineMilliseconds = Self.milliseconds(deadline)
            _ = ccurl_set_long(easy, CURLOPT_TIMEOUT_MS, deadlineMilliseconds)
            let idle = request.timeoutInterval > 0 ? request.timeoutInterval : deadline
            _ = ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(Self.milliseconds(idle), deadlineMilliseconds))
            // The idle timeout: less than a byte a second for that long ends the transfer.
            _ = ccurl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = ccurl_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(idle.rounded(.up))))
            if headers != nil { _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, headers) }
            _ = ccurl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
            _ = ccurl_set_callback(easy, CURLOPT_HEADERFUNCTION, curlBundleHeaderReceived)
            _ = ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)
            _ = ccurl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlBodySinkWrite)
            _ = ccurl_set_pointer(easy, CURLOPT_WRITEDATA, bodySink.context)
        }

        /// `seconds` as libcurl's milliseconds, at least 1 (0 would mean no limit).
        private static func milliseconds(_ seconds: TimeInterval) -> Int {
            let milliseconds = (seconds * 1000).rounded(.up)
            guard milliseconds.isFinite else { return Int(Int32.max) }
            return Int(min(max(milliseconds, 1), Double(Int32.max)))
        }

        /// One line of a response head (status line, field, the blank line ending it); false
        /// ends the transfer.
        ///
        /// Read as bytes, as libcurl reads them: a field's name is what stands before its first
        /// `:` byte and must be a token (RFC 9110 §5.1), else the head is refused; a status line
        /// is only the first line of a head. Read as Swift `Character`s, `:` followed by a
        /// combining mark was no colon, and a field line `HTTP/1.1: x` passed for a new status
        /// line that dropped the fields before it, while libcurl still decoded a chunked body
        /// that this judge never saw announced (outside attack round 12, F2).
        func header(_ line: UnsafeRawBufferPointer) -> Bool {
            // Trailer fields after a body (none is read here but a Content-Length one) are not
            // part of the head that was judged.
            if ending != nil { return false }
            if response != nil { return true }
            headBytes += line.count
            guard headBytes <= Self.maximumHeadBytes else {
                ending = .refused("a response head over \(Self.maximumHeadBytes) bytes")
                return false
            }
            var content = line[...]
            while let last = content.last, last == 0x0A || last == 0x0D { content = content.dropLast() }
            if atHeadStart {
                // A new response (the first, or the one after a 1xx): its status line, its fields only.
                atHeadStart = false
                httpVersion = String(decoding: content.prefix { $0 != 0x20 }, as: UTF8.self)
                fields = []
                headBytes = line.count
                return true
            }
            if content.isEmpty {
                atHeadStart = true
                return headEnded()
            }
            if content.first == 0x20 || content.first == 0x09 {
                // An obsolete folded line continues the field before it.
                guard !fields.isEmpty else { return refuse("a folded line before any field") }
                fields[fields.count - 1].value += " " + Self.text(content)
                return true
            }
            guard let colon = content.firstIndex(of: 0x3A), colon > content.startIndex,
                content[..<colon].allSatisfy(HTTPToken.isTokenByte)
            else { return refuse("a response field whose name is not a token") }
            fields.append((Self.canonicalName(Self.text(content[..<colon])), Self.text(content[(colon + 1)...])))
            return true
        }

        /// Refuses the head with `reason`; false, to end the transfer.
        private func refuse(_ reason: String) -> Bool {
            ending = .refused(reason)
            return false
        }

        /// Bytes of a head as text, without the spaces and tabs around them.
        private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
            var trimmed = bytes
            while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
            while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
            return String(decoding: trimmed, as: UTF8.self)
        }

        /// The blank line after a head: a 1xx is skipped; any other head is judged before a
        /// body byte is read, as BundleDownload judges it.
        private func headEnded() -> Bool {
            var status = 0
            _ = ccurl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if (100..<200).contains(status) { return true }
            let headerFields = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
            guard let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: httpVersion, headerFields: headerFields)
            else {
                ending = .failed("not an HTTP response")
                return false
            }
            response = http
            // Any other answer's body is not read: a 304 has none, an error page is not used.
            guard status == 200 else { return false }
            if let refusal = BundleDownload.refusal(of: http, limit: limit) {
                ending = refusal
                return false
            }
            do throws(BundleCacheWriteError) {
                body = try destination(http)
                return true
            } catch {
                ending = .writeFailed(error)
                return false
            }
        }

        /// Body bytes of a 200 whose head was accepted; false ends the transfer.
        func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard ending == nil, let body else { return false }
            received += bytes.count
            guard received <= limit else {
                ending = .tooLarge(received)
                return false
            }
            do {
                try body.handle.write(contentsOf: bytes)
                return true
            } catch {
                ending = .writeFailed(BundleCacheWriteError(path: body.url.path, reason: error.localizedDescription))
                return false
            }
        }

        /// How the transfer ended, once libcurl returned `code`; the body file flushed or deleted.
        func finish(_ code: CURLcode, detail: String) -> BundleDownload.Outcome {
            let outcome: BundleDownload.Outcome
            if let ending {
                outcome = ending
            } else if let response, code == CURLE_OK || response.statusCode != 200 {
                outcome = .answered(response, body: body?.url)
            } else {
                outcome = .failed(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            }
            return BundleDownload.settle(outcome, body: body)
        }

        /// `Content-Length` for `content-length`: HTTPURLResponse's own lookups are not all
        /// case-insensitive, and HTTP field names are.
        private static func canonicalName(_ name: String) -> String {
            name.split(separator: "-", omittingEmptySubsequences: false)
                .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
                .joined(separator: "-")
        }
    }

    /// CURLOPT_HEADERFUNCTION: one head line per call (its length, or 0 to end the transfer).
    private func curlBundleHeaderReceived(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        let length = size * count
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<CurlBundleTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.header(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
    }
#endif
