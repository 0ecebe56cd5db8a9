#if canImport(Glibc)
    import Glibc
#endif

/// Per-request state, created in the URI-log callback and released in NOTIFY_COMPLETED.
///
/// `@unchecked Sendable` because ownership moves between threads under a protocol the
/// compiler cannot see: the connection's worker thread owns it, except while the connection
/// is suspended, when only ``SuspendedConnections`` touches it (under its lock) until
/// `MHD_resume_connection` hands it back.
final class RequestContext: @unchecked Sendable {
    /// The target's bytes exactly as on the request line (from the URI-log callback; MHD
    /// unescapes its own copy in place afterwards, so they are copied out). Reused by the
    /// next request of a keep-alive connection: the request handed to the responder shares
    /// this array, and once it is dropped (before the next request starts) the storage is
    /// unique again and refilled without an allocation.
    @exclusivity(unchecked) private(set) var targetBytes: [UInt8]
    /// Set when the request is handed to a suspension (a task or an event loop may keep
    /// the context, and the registry knows it by identity): such a context is never reused.
    var hasEscaped = false
    // The fields mutated in place on every request (these three, `framing`, `receivedHeaders` and `targetBytes`) are exempt from the runtime
    // exclusivity check (`swift_beginAccess`/`endAccess`, ≈ 115 instructions per access, ≈ 10
    // accesses per request): one thread at a time owns the context (above), and no access to
    // them is ever nested in another (each is a single mutating call or assignment).
    @exclusivity(unchecked) var machine: RequestStateMachine
    var method = ""
    var httpVersion = ""
    var remoteAddress = ""
    /// The header fields as received (bytes; Strings only when a responder reads them).
    /// Replaced instead of emptied when a request that still holds it is alive.
    @exclusivity(unchecked) private(set) var receivedHeaders = ReceivedHeaderFields()
    /// Size of the header section as sent: `name: value\r\n` per field.
    var headerBytes = 0
    /// Host / Content-Length / Transfer-Encoding, noted while collecting.
    @exclusivity(unchecked) var framing = FramingFields()
    /// The first field line that breaks RFC 9112 syntax, found while collecting.
    var fieldSyntax: FieldSyntaxViolation?
    /// The walk over MHD's in-place parsed head while collecting (nil: not checked).
    @exclusivity(unchecked) var layout: HeaderSectionLayout?
    /// The connection's deadlines (nil when the server does not track connections).
    let connection: TrackedConnection?
    /// Storage lent to libmicrohttpd for response bodies; made when the context is reused
    /// (the connection is keep-alive), so a one-request connection allocates nothing more.
    /// It outlives the context as long as MHD still holds a response made from it.
    private(set) var responseBody: ResponseBodyBuffer?

    init(target: UnsafePointer<CChar>?, maxBodyBytes: Int, connection: TrackedConnection? = nil) {
        self.targetBytes = []
        self.connection = connection
        self.machine = RequestStateMachine(maxBodyBytes: maxBodyBytes)
        setTarget(target)
    }

    /// Copies the target MHD reported. An ASCII target (nearly all of them) is copied as
    /// it is; anything else goes through `String(cString:)`, which replaces invalid UTF-8
    /// with U+FFFD, so the checks, the limits and the responder see the same bytes as when
    /// the target was a String.
    private func setTarget(_ target: UnsafePointer<CChar>?) {
        targetBytes.removeAll(keepingCapacity: true)
        guard let target else { return }
        let bytes = UnsafeRawBufferPointer(start: target, count: strlen(target))
        if Self.isASCII(bytes) {
            targetBytes.append(contentsOf: bytes)
        } else {
            targetBytes.append(contentsOf: String(cString: target).utf8)
        }
    }

    /// Whether every byte is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        // Whole words only: `offset + 8 <= bytes.count` keeps every load inside the buffer.
        while offset + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < bytes.count {
            if bytes[offset] >= 0x80 { return false }
            offset += 1
        }
        return true
    }

    /// Makes a finished context of the same connection ready for its next request, keeping
    /// the header array's storage: on a keep-alive connection neither the context nor the
    /// array is allocated again. Only for a context nothing else references.
    func reset(target: UnsafePointer<CChar>?, maxBodyBytes: Int) {
        setTarget(target)
        machine = RequestStateMachine(maxBodyBytes: maxBodyBytes)
        method = ""
        httpVersion = ""
        remoteAddress = ""
        if isKnownUniquelyReferenced(&receivedHeaders) {
            receivedHeaders.removeAll()
        } else {
            receivedHeaders = ReceivedHeaderFields()
        }
        headerBytes = 0
        framing = FramingFields()
        fieldSyntax = nil
        layout = nil
        hasEscaped = false
        if responseBody == nil { responseBody = ResponseBodyBuffer() }
    }

    /// The complete request for the responder.
    func makeRequest(body: [UInt8]) -> HTTPRequest {
        HTTPRequest(
            method: method, rawTargetBytes: targetBytes, receivedHeaders: receivedHeaders, body: body,
            remoteAddress: remoteAddress, httpVersion: httpVersion)
    }
}
