import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One bundle request whose body is streamed, chunk by chunk, into a file the caller chooses once
/// the headers are in (the staging file in the cache directory): no whole-body buffer, no
/// temporary file of the session's to copy (issue 42), and at most `limit` body bytes written.
///
/// The body's size is settled at the response head: an answer is read only when it announces a
/// `Content-Length` of at most `limit`, no `Transfer-Encoding` and no `Content-Encoding` but
/// `identity` (which is all the client asks for), so what is written and checked never outgrows
/// a declared, bounded length (attack round 9, F3). On Apple platforms the `.cancel` disposition
/// ends the transfer there. Corelibs Foundation on Linux ignores it, queues body chunks for this
/// delegate with no backpressure and has libcurl inflate whatever it read before the cancel
/// lands, so there the memory a hostile answer costs is the transport's: on Linux this class
/// runs only for an app that passes its own `session`, ``CurlBundleDownload`` (these rules over
/// libcurl) otherwise (docs/integrations/ios.md, "The transport on Linux"). The count below
/// still stops the writes at `limit`.
///
/// No redirect is followed: the request carries the bearer token, and another origin must never
/// see it (attack round 9, F4). A 3xx is the answer, reported as such.
final class BundleDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// How a download ended.
    enum Outcome: Sendable {
        /// An answer: for a 200, `body` holds its bytes after the file's own prefix, flushed.
        case answered(HTTPURLResponse, body: URL?)
        /// More than the limit was announced or arrived (bytes seen so far); nothing is kept.
        case tooLarge(Int)
        /// The body file could not be made or written; nothing is kept.
        case writeFailed(BundleCacheWriteError)
        /// The request failed (transport error, cancelled, no HTTP answer).
        case failed(String)
        /// The response head was refused (an encoding, or no bounded length); no body is read.
        case refused(String)
    }

    /// Where a 200 answer's body goes: a file already holding whatever must precede it.
    typealias Destination = @Sendable (HTTPURLResponse) throws(BundleCacheWriteError) -> (url: URL, handle: FileHandle)

    private struct State {
        var response: HTTPURLResponse?
        var body: (url: URL, handle: FileHandle)?
        var received = 0
        /// Set when the download is cut short by this class (the task's error is then "cancelled").
        var ending: Outcome?
        var continuation: CheckedContinuation<Outcome, Never>?
    }

    private let limit: Int
    private let destination: Destination
    // Delegate callbacks arrive on the session's serial queue; the lock is for `run`'s side.
    private let state = LockedValue(State())

    private init(limit: Int, destination: @escaping Destination) {
        self.limit = limit
        self.destination = destination
    }

    /// Runs `request` on a session of `configuration` (its own, so this delegate sees the body)
    /// and returns once the answer is complete or refused, or `deadline` seconds after the start.
    ///
    /// The deadline is this class's own timer: the request's timeout only limits the wait
    /// between two bytes, so a server sending a byte every few seconds held a refresh (and every
    /// refresh that joined it) forever (finding F5), and corelibs Foundation does not enforce
    /// `timeoutIntervalForResource`.
    static func run(
        _ request: URLRequest, configuration: URLSessionConfiguration, limit: Int, deadline: TimeInterval,
        destination: @escaping Destination
    ) async -> Outcome {
        let download = BundleDownload(limit: limit, destination: destination)
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let timer = Task {
            try await Task.sleep(for: .seconds(deadline))
            download.end(.failed(deadlineReason(deadline)), task: task)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            download.state.withLock { $0.continuation = continuation }
            task.resume()
        }
    }

    /// Why a download ended at its deadline, as `refreshTimeout` names it (both transports).
    static func deadlineReason(_ deadline: TimeInterval) -> String {
        "no complete answer within \(deadline) s (refreshTimeout)"
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            end(.failed("not an HTTP response"), task: dataTask)
            completionHandler(.cancel)
            return
        }
        state.withLock { $0.response = http }
        guard http.statusCode == 200 else {
            // Any other answer's body is not read: a 304 has none, an error page is not used.
            completionHandler(.cancel)
            return
        }
        if let refusal = Self.refusal(of: http, limit: limit) {
            end(refusal, task: dataTask)
            completionHandler(.cancel)
            return
        }
        do throws(BundleCacheWriteError) {
            let body = try destination(http)
            state.withLock { $0.body = body }
            completionHandler(.allow)
        } catch {
            end(.writeFailed(error), task: dataTask)
            completionHandler(.cancel)
        }
    }

    /// Why the head of a 200 is refused before its body is read; nil when the body is read.
    static func refusal(of http: HTTPURLResponse, limit: Int) -> Outcome? {
        if let encoding = http.value(forHTTPHeaderField: "Content-Encoding"),
            encoding.trimmingCharacters(in: .whitespaces).lowercased() != "identity"
        {
            return .refused(
                "Content-Encoding \(BundleText.shown(encoding)) although only identity was asked for; "
                    + "the session would inflate it without bound")
        }
        if let transfer = http.value(forHTTPHeaderField: "Transfer-Encoding") {
            return .refused("Transfer-Encoding \(BundleText.shown(transfer)): a bundle must come with a Content-Length")
        }
        guard http.expectedContentLength >= 0 else {
            return .refused("no Content-Length: a bundle of unannounced length is not read")
        }
        if http.expectedContentLength > Int64(limit) {
            return .tooLarge(Int(clamping: http.expectedContentLength))
        }
        return nil
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Not followed: the request carries the bearer token (F4). The 3xx becomes the answer
        // (kept here too, should the session not hand it on as a response).
        state.withLock { $0.response = response }
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let failure: Outcome? = state.withLock { state in
            guard state.ending == nil, let body = state.body else { return nil }
            state.received += data.count
            guard state.received <= limit else { return .tooLarge(state.received) }
            do {
                try body.handle.write(contentsOf: data)
                return nil
            } catch {
                return .writeFailed(BundleCacheWriteError(path: body.url.path, reason: error.localizedDescription))
            }
        }
        if let failure { end(failure, task: dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, outcome) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            defer { state.continuation = nil }
            let outcome: Outcome
            if let ending = state.ending {
                outcome = ending
            } else if let response = state.response, error == nil || response.statusCode != 200 {
                outcome = .answered(response, body: state.body?.url)
            } else {
                outcome = .failed(error?.localizedDescription ?? "no answer")
            }
            return (state.continuation, Self.settle(outcome, body: state.body))
        }
        continuation?.resume(returning: outcome)
    }

    /// `outcome` once the body file (if one was made) is settled: an answer's flushed to disk
    /// (a failed flush is the outcome instead), any other's deleted; closed either way.
    static func settle(_ outcome: Outcome, body: (url: URL, handle: FileHandle)?) -> Outcome {
        guard let body else { return outcome }
        var outcome = outcome
        // On disk before a rename can make it the last good bundle: a power cut after the
        // rename must not leave a cache file of zeros.
        if case .answered = outcome {
            do {
                try body.handle.synchronize()
            } catch {
                outcome = .writeFailed(BundleCacheWriteError(path: body.url.path, reason: error.localizedDescription))
            }
        }
        try? body.handle.close()
        if case .answered = outcome {} else { try? FileManager.default.removeItem(at: body.url) }
        return outcome
    }

    /// Ends the download with `outcome` (the first one set wins) and cancels its task. With no
    /// body file to close and delete, the caller has its outcome now: on Linux the task
    /// completes only after the session delivered every chunk it queued (a refused gzip bomb
    /// held the refresh 9 to 17 s).
    private func end(_ outcome: Outcome, task: URLSessionTask) {
        let (continuation, ending) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            if state.ending == nil { state.ending = outcome }
            guard state.body == nil, let continuation = state.continuation, let ending = state.ending else {
                return (nil, outcome)
            }
            state.continuation = nil
            return (continuation, ending)
        }
        task.cancel()
        continuation?.resume(returning: ending)
    }
}
