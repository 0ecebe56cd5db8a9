#if os(Linux)
    /// Where libcurl's body callback (``curlBodySinkWrite(_:_:_:_:)``, CURLOPT_WRITEFUNCTION)
    /// hands a transfer's bytes: the one trampoline of the client's own bundle transport
    /// (``CurlBundleDownload``) and the daemon's `policySource` puller.
    ///
    /// Pass ``context`` as CURLOPT_WRITEDATA and keep the sink alive until `curl_easy_perform`
    /// returns; the callback reaches it through that unretained pointer.
    package final class CurlBodySink {
        private let receive: (UnsafeRawBufferPointer) -> Bool

        /// `receive` takes body bytes and returns false to end the transfer (libcurl then reports
        /// a write error). It runs on the thread that runs `curl_easy_perform`.
        package init(_ receive: @escaping (UnsafeRawBufferPointer) -> Bool) { self.receive = receive }

        /// CURLOPT_WRITEDATA for ``curlBodySinkWrite(_:_:_:_:)``.
        package var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        fileprivate func take(_ bytes: UnsafeRawBufferPointer) -> Bool { receive(bytes) }
    }

    /// CURLOPT_WRITEFUNCTION for a ``CurlBodySink`` passed as CURLOPT_WRITEDATA: the bytes'
    /// count, or 0 to end the transfer.
    package func curlBodySinkWrite(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        let length = size * count
        guard let context else { return 0 }
        guard let data, length > 0 else { return length }
        let sink = Unmanaged<CurlBodySink>.fromOpaque(context).takeUnretainedValue()
        return sink.take(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
    }
#endif
