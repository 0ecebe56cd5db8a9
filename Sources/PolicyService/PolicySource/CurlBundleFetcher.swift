import CCurl
import Foundation
import Glibc
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient

/// Fetches a `policySource` bundle with libcurl (the library the proxy forwards with), one
/// blocking transfer at a time on the poller's thread.
///
/// Every input from the server is bounded: the whole transfer by `timeoutSeconds` (a server
/// that drips a byte a second is cut off, not waited for), the body by `maxBytes` (refused
/// from its `Content-Length` before a byte is read, else when the running count passes it),
/// and it is streamed into the staging file, never held in memory. No redirects (a source
/// that moved is reported, not followed) and no proxy from the environment.
struct CurlBundleFetcher: PolicySourceFetching {
    func fetch(_ request: PolicySourceRequest, stage: @escaping Staging) throws(PolicySourceFailure) -> PolicySourceResponse {
        guard let easy = curl_easy_init() else {
            throw PolicySourceFailure(PolicySourceFailure.unreachable, "libcurl could not start a transfer")
        }
        defer { curl_easy_cleanup(easy) }
        let transfer = CurlBundleTransfer(easy: easy, maxBytes: request.maxBytes, stage: stage)
        var headers: UnsafeMutablePointer<curl_slist>?
        if let tag = request.ifNoneMatch {
            headers = curl_slist_append(headers, "If-None-Match: \(tag)")
        }
        defer { curl_slist_free_all(headers) }
        let code = withExtendedLifetime(transfer) { () -> CURLcode in
            let context = Unmanaged.passUnretained(transfer).toOpaque()
            _ = request.url.withCString { ccurl_set_string(easy, CURLOPT_URL, $0) }
            _ = ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = ccurl_set_string(easy, CURLOPT_NOPROXY, "*")
            _ = ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = ccurl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            let totalMilliseconds = request.timeoutSeconds * 1000
            _ = ccurl_set_long(easy, CURLOPT_TIMEOUT_MS, totalMilliseconds)
            _ = ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(totalMilliseconds, 10_000))
            _ = ccurl_set_size(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBytes))
            _ = ccurl_set_string(easy, CURLOPT_USERAGENT, "navpolicyd-policy-source")
            if headers != nil { _ = ccurl_set_list(easy, CURLOPT_HTTPHEADER, headers) }
            _ = ccurl_set_callback(easy, CURLOPT_HEADERFUNCTION, policySourceHeaderReceived)
            _ = ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)
            _ = ccurl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlBodySinkWrite)
            _ = ccurl_set_pointer(easy, CURLOPT_WRITEDATA, transfer.bodySink.context)
            return curl_easy_perform(easy)
        }
        return try transfer.finish(code)
    }
}

/// The state of one transfer, reached from libcurl's callbacks through an unretained pointer.
private final class CurlBundleTransfer {
    let easy: UnsafeMutableRawPointer
    let maxBytes: Int
    let stage: PolicySourceFetching.Staging
    var entityTag: String?
    var signatureField: String?
    var received = 0
    var body: (url: URL, handle: FileHandle)?
    /// Why a callback stopped the transfer (it then returns 0 and libcurl ends with a write error).
    var failure: PolicySourceFailure?
    /// Where libcurl's body callback hands the bytes (``receive(_:)``); owned here, so it lives
    /// through `curl_easy_perform`, and unowned back, so the two are no cycle.
    private(set) lazy var bodySink = CurlBodySink { [unowned self] in self.receive($0) }

    init(easy: UnsafeMutableRawPointer, maxBytes: Int, stage: @escaping PolicySourceFetching.Staging) {
        self.easy = easy
        self.maxBytes = maxBytes
        self.stage = stage
    }

    var status: Int {
        var code = 0
        _ = ccurl_get_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// One header line (status line and the blank line included).
    func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            // A new answer (after a 100 Continue): its fields only.
            (entityTag, signatureField) = (nil, nil)
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if name.hasSameUTF8(as: "etag") { entityTag = value }
        if name == BundleFormat.signatureField.lowercased() { signatureField = value }
    }

    /// Body bytes: written to the staging file for a 200, counted (and dropped) otherwise.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += bytes.count
        guard received <= maxBytes else {
            failure = PolicySourceFailure(PolicySourceFailure.tooLarge, "more than \(maxBytes) bytes")
            return false
        }
        guard status == 200 else { return true }
        do throws(PolicySourceFailure) {
            let file: (url: URL, handle: FileHandle)
            if let body {
                file = body
            } else {
                file = try stage(signatureField)
                body = file
            }
            try Self.write(bytes, to: file)
            return true
        } catch {
            failure = error
            return false
        }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to file: (url: URL, handle: FileHandle))
        throws(PolicySourceFailure)
    {
        var rest = bytes
        while !rest.isEmpty {
            let written = Glibc.write(file.handle.fileDescriptor, rest.baseAddress, rest.count)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw PolicySourceFailure(
                    PolicySourceFailure.cacheWrite, "\(file.url.path): \(String(cString: strerror(errno)))")
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }

    /// The answer, once libcurl returned `code`; the staged body is on disk (fsync) or deleted.
    func finish(_ code: CURLcode) throws(PolicySourceFailure) -> PolicySourceResponse {
        var outcome: Result<PolicySourceResponse, PolicySourceFailure>
        if let failure {
            outcome = .failure(failure)
        } else if code == CURLE_OK {
            let status = self.status
            outcome = .success(
                PolicySourceResponse(status: status, entityTag: entityTag, signatureField: signatureField, body: nil))
            if status == 200, body == nil {
                // An empty 200: still a body to check (and refuse as malformed).
                do throws(PolicySourceFailure) {
                    body = try stage(signatureField)
                } catch {
                    outcome = .failure(error)
                }
            }
        } else {
            outcome = .failure(Self.failure(code))
        }
        if let body {
            var flushed = true
            if case .success = outcome {
                // On disk before a rename can make it the last good bundle (cacheFile).
                do { try body.handle.synchronize() } catch { flushed = false }
            }
            try? body.handle.close()
            if case .success(let response) = outcome, flushed {
                return PolicySourceResponse(
                    status: response.status, entityTag: response.entityTag, signatureField: response.signatureField,
                    body: body.url)
            }
            try? FileManager.default.removeItem(at: body.url)
            if flushed == false {
                throw PolicySourceFailure(PolicySourceFailure.cacheWrite, "\(body.url.path): fsync failed")
            }
        }
        return try outcome.get()
    }

    private static func failure(_ code: CURLcode) -> PolicySourceFailure {
        let detail = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return PolicySourceFailure(PolicySourceFailure.timeout, detail)
        case CURLE_FILESIZE_EXCEEDED: return PolicySourceFailure(PolicySourceFailure.tooLarge, detail)
        default: return PolicySourceFailure(PolicySourceFailure.unreachable, detail)
        }
    }
}

/// CURLOPT_HEADERFUNCTION: one header line per call.
private func policySourceHeaderReceived(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    Unmanaged<CurlBundleTransfer>.fromOpaque(context).takeUnretainedValue()
        .header(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
