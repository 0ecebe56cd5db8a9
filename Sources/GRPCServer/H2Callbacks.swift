import CNGHTTP2
import HTTPTypes

/// The nghttp2 session callbacks: C function pointers that capture nothing and find their
/// ``H2Connection`` through `user_data` (unretained: the connection deletes the session before
/// it goes away). Each copies what it is handed (nghttp2's buffers live only for the call),
/// never traps, and answers a malformed or unexpected input with an nghttp2 error code, which
/// resets the stream or ends the session.
enum H2Callbacks {
    /// A server session for `connection`, with the callbacks set; nil when nghttp2 is out of memory.
    static func makeSession(for connection: H2Connection) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, beginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, header)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, dataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, streamClosed)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, frameSent)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { return nil }
        defer { nghttp2_option_del(option) }
        // Our encoder's HPACK table (the one our response headers are compressed against): at most
        // 4 KiB whatever SETTINGS_HEADER_TABLE_SIZE the peer advertises, as nghttp2 takes the
        // smaller of the two. The peer's table, which our decoder mirrors and keeps per
        // connection, is bounded by what we advertise instead: we send no
        // SETTINGS_HEADER_TABLE_SIZE, so it stays at the protocol's initial 4,096 bytes
        // (RFC 9113 section 6.5.2), and nghttp2's inflater answers a table size update above
        // that with a COMPRESSION_ERROR GOAWAY (nghttp2_hd.c, NGHTTP2_HD_STATE_READ_TABLE_SIZE).
        nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096)
        var session: OpaquePointer?
        let userData = Unmanaged.passUnretained(connection).toOpaque()
        guard nghttp2_session_server_new2(&session, callbacks, userData, option) == 0 else { return nil }
        return session
    }

    private static func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection? {
        userData.map { Unmanaged<H2Connection>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let beginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame, let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        let headers = frame.pointee.headers
        if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && headers.cat == NGHTTP2_HCAT_REQUEST {
            // Opening a stream is not activity: only an answer keeps the connection (H2Connection.lastAnswered).
            connection.streams[frame.pointee.hd.stream_id] = connection.makeStream()
        }
        return 0
    }

    private static let header: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        let id = frame.pointee.hd.stream_id
        // Trailers from the client count toward the header limit but carry nothing it reads.
        connection.streams[id]?.header(
            name: UnsafeBufferPointer(start: name, count: name == nil ? 0 : nameLength),
            value: UnsafeBufferPointer(start: value, count: value == nil ? 0 : valueLength),
            isTrailer: frame.pointee.headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0
    }

    private static let dataChunk: nghttp2_on_data_chunk_recv_callback = { session, _, id, data, length, userData in
        guard let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        guard connection.streams[id] != nil else { return 0 }
        guard connection.acceptsBuffered(length) else {
            // Past the connection's buffer: this stream goes, its bytes with it.
            connection.streams[id] = nil
            if let session {
                _ = nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            }
            return 0
        }
        connection.streams[id]?.data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : length))
        return 0
    }

    private static let frameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame, let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        let type = frame.pointee.hd.type
        let isRequestPart = type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue)
        let id = frame.pointee.hd.stream_id
        if isRequestPart && frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            && connection.streams[id] != nil
        {
            connection.completed.append(id)
        }
        return 0
    }

    private static let streamClosed: nghttp2_on_stream_close_callback = { _, id, _, userData in
        guard let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        connection.streams[id] = nil
        connection.outbound[id] = nil
        connection.undelivered[id] = nil
        return 0
    }

    /// A response counts as answered once its last frame (HEADERS or DATA with END_STREAM: the
    /// trailers, or the whole answer) was handed to the socket, not when it was queued: a peer
    /// that keeps its flow-control window shut receives nothing (issue 38).
    private static let frameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
        guard let frame, let connection = connection(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
        let type = frame.pointee.hd.type
        let isResponsePart = type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue)
        if isResponsePart && frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
            connection.delivered(frame.pointee.hd.stream_id)
        }
        return 0
    }

    /// The data source of every response body: copies from the connection's ``H2Connection/outbound``
    /// buffer, and at its end submits the response's trailers when it has them.
    static let readBody: nghttp2_data_source_read_callback = { session, id, buffer, length, flags, _, userData in
        guard let session, let buffer, let flags, let connection = connection(userData),
            let pending = connection.outbound[id]
        else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress, count > 0 { buffer.update(from: base + pending.offset, count: count) }
        }
        let offset = pending.offset + count
        guard offset == pending.bytes.count else {
            connection.outbound[id] = (pending.bytes, offset, pending.trailers)
            return count
        }
        connection.outbound[id] = nil
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        if let trailers = pending.trailers {
            flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
            let submitted = withHeaderList(status: nil, trailers) { list, listCount in
                nghttp2_submit_trailer(session, id, list, listCount)
            }
            guard submitted == 0 else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        }
        return count
    }

    /// Calls `body` with an `nghttp2_nv` array over `:status` (when given) and `headers`;
    /// nghttp2 copies the names and values during the submit call, so the array only lives for
    /// it. Names are lowered on the way (HTTP/2 field names are lowercase, RFC 9113 section
    /// 8.2.1), so a response may spell them as HTTP/1.1 does.
    static func withHeaderList(
        status: String?, _ headers: HTTPHeaders, _ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32
    ) -> Int32 {
        var storage: [UInt8] = []
        storage.reserveCapacity(256)
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        ranges.reserveCapacity(headers.count + 1)
        func add(_ name: String, _ value: String) {
            let nameStart = storage.count
            for byte in name.utf8 { storage.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            let valueStart = storage.count
            storage += value.utf8
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        if let status { add(":status", status) }
        for field in headers { add(field.name, field.value) }
        storage.append(0)  // never empty, so the base address exists
        return storage.withUnsafeMutableBufferPointer { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return NGHTTP2_ERR_NOMEM.rawValue }
            let list = ranges.map { range in
                nghttp2_nv(
                    name: base + range.name.lowerBound, value: base + range.value.lowerBound, namelen: range.name.count,
                    valuelen: range.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return list.withUnsafeBufferPointer { nv in
                guard let first = nv.baseAddress else { return NGHTTP2_ERR_INVALID_ARGUMENT.rawValue }
                return body(first, nv.count)
            }
        }
    }
}
