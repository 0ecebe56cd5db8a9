import CMicroHTTPD

/// Turns an ``HTTPResponse`` into an MHD response and queues it on a connection.
enum ResponseQueueing {
    /// Whether MHD writes the field itself (Content-Length, Transfer-Encoding, Date);
    /// setting it too would send it twice or break framing. Dispatched on the name's length
    /// so that the common fields (Content-Type, Cache-Control) are passed over without a
    /// comparison: the loop over an array of names cost ≈ 150 instructions per field.
    private static func isManagedByMHD(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: HTTPFieldName.date.matches(name)
        case 14: HTTPFieldName.contentLength.matches(name)
        case 17: HTTPFieldName.transferEncoding.matches(name)
        default: false
        }
    }

    /// Queues `response`; returns nil when the response itself is invalid (bad status or
    /// header, or trailers), so the caller can fall back to a 500, or MHD's own result otherwise.
    /// Trailers are refused, not dropped: HTTP/1.1 carries them only after a chunked body (here
    /// only a stream of unknown length, and never to an HTTP/1.0 client), a recipient may
    /// discard them (RFC 9110 section 6.5), and a response whose meaning is in its trailers (a
    /// gRPC status) must not arrive without them.
    static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, closeConnection: Bool, streams: StreamedBodies,
        bodyBuffer: ResponseBodyBuffer? = nil
    ) -> MHD_Result? {
        guard response.status.isValid, response.trailers.count == 0 else {
            if case .stream(let stream) = response.body { stream.close() }
            return nil
        }
        let created: OpaquePointer?
        switch response.body {
        case .stream(let stream):
            created = streamedResponse(stream, on: connection, streams: streams)
        case .bytes(let body):
            if let length = notModifiedLength(of: response, body: body) {
                created = MHD_create_response_from_callback(length, 256, mhdNoBodyRead, nil, nil)
            } else if let lent = bodyBuffer?.lend(body) {
                created = lent
            } else {
                created = bufferResponse(body)
            }
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }  // MHD holds a reference while sending
        guard addHeaders(of: response, to: mhdResponse, closeConnection: closeConnection) else { return nil }
        return MHD_queue_response(connection, UInt32(response.status.code), mhdResponse)
    }

    /// A complete MHD response for `response` (buffer body only), owned by the caller, for
    /// responses built once and queued many times; nil when it is invalid or has a stream.
    static func persistentResponse(for response: HTTPResponse, closeConnection: Bool) -> OpaquePointer? {
        guard response.status.isValid, response.trailers.count == 0, case .bytes(let body) = response.body,
            let created = bufferResponse(body)
        else { return nil }
        guard addHeaders(of: response, to: created, closeConnection: closeConnection) else {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }

    /// MUST_COPY: MHD keeps its own copy, so the Swift array may be freed right away.
    private static func bufferResponse(_ body: [UInt8]) -> OpaquePointer? {
        body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
    }

    /// Adds the response's fields, and `Connection: close` when the connection must close;
    /// false when MHD refuses a field (a name or value it considers invalid).
    private static func addHeaders(of response: HTTPResponse, to mhdResponse: OpaquePointer, closeConnection: Bool)
        -> Bool
    {
        for field in response.headers {
            if isManagedByMHD(field.name) { continue }
            if closeConnection && HTTPFieldName.connection.matches(field.name) { continue }
            // withCString: implicit String-to-pointer bridging heap-copies small strings.
            let added = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(mhdResponse, name, value) }
            }
            guard added == .YES else { return false }
        }
        if closeConnection {
            // MHD closes the connection after sending a response that carries this header.
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        return true
    }

    /// The length a bodyless 304 declares in its own `Content-Length`: the length of the 200
    /// it stands for (RFC 9110 §8.6). MHD writes the length of the response object for a 304
    /// (and ignores a `Content-Length` field the application adds), so an empty buffer would
    /// say `Content-Length: 0`, telling a cache the representation is empty. A response object
    /// of that length whose reader is never called says the real one; MHD never sends a 304's
    /// body. Nil for anything else (one decimal value, a 304 without body or stream).
    private static func notModifiedLength(of response: HTTPResponse, body: [UInt8]) -> UInt64? {
        guard response.status == .notModified, body.isEmpty,
            let value = response.headers[.contentLength], !value.isEmpty, value.utf8.count <= 18,
            value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return UInt64(value)
    }

    /// A callback response pulling from `stream`; the stream is closed if MHD cannot take it.
    private static func streamedResponse(
        _ stream: any HTTPBodyStream, on connection: OpaquePointer, streams: StreamedBodies
    ) -> OpaquePointer? {
        let body = StreamedBody(stream: stream, connection: connection, registry: streams)
        let length = stream.contentLength.map { UInt64(max(0, $0)) } ?? UInt64.max  // MHD_SIZE_UNKNOWN
        // MHD allocates one block per response: small for short bodies, 16 KiB otherwise.
        let blockSize = min(max(stream.contentLength ?? 16_384, 256), 16_384)
        let context = Unmanaged.passRetained(body).toOpaque()
        guard let created = MHD_create_response_from_callback(length, blockSize, mhdStreamRead, context, mhdStreamFreed)
        else {
            // MHD never took the context, so its free callback will not run.
            mhdStreamFreed(context)
            return nil
        }
        return created
    }
}
