import CMicroHTTPD

/// Turns an ``HTTPResponse`` into an MHD response and queues it on a connection.
enum ResponseQueueing {
    /// Headers MHD writes itself; setting them too would send them twice or break framing.
    private static let headersManagedByMHD = ["Content-Length", "Transfer-Encoding", "Date"]

    /// Queues `response`; returns nil when the response itself is invalid (bad status or
    /// header), so the caller can fall back to a 500, or MHD's own result otherwise.
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer, closeConnection: Bool) -> MHD_Result? {
        guard (100...599).contains(response.status) else { return nil }
        // MUST_COPY: MHD keeps its own copy, so the Swift array may be freed right away.
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }  // MHD holds a reference while sending
        for field in response.headers {
            if headersManagedByMHD.contains(where: { HTTPHeaders.namesMatch($0, field.name) }) { continue }
            if closeConnection && HTTPHeaders.namesMatch(field.name, "Connection") { continue }
            guard MHD_add_response_header(mhdResponse, field.name, field.value) == .YES else { return nil }
        }
        if closeConnection {
            // MHD closes the connection after sending a response that carries this header.
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}
