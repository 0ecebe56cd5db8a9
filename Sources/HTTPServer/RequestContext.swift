/// Per-request state, created in the URI-log callback and released in NOTIFY_COMPLETED.
///
/// `@unchecked Sendable` because ownership moves between threads under a protocol the
/// compiler cannot see: the connection's worker thread owns it, except while the connection
/// is suspended, when only ``SuspendedConnections`` touches it (under its lock) until
/// `MHD_resume_connection` hands it back.
final class RequestContext: @unchecked Sendable {
    /// The target exactly as on the request line (from the URI-log callback).
    let rawTarget: String
    var machine: RequestStateMachine
    var method = ""
    var httpVersion = ""
    var remoteAddress = ""
    var headers = HTTPHeaders()
    /// Size of the header section as sent: `name: value\r\n` per field.
    var headerBytes = 0
    /// The first field line that breaks RFC 9112 syntax, found while collecting.
    var fieldSyntax: FieldSyntaxViolation?
    /// The walk over MHD's in-place parsed head while collecting (nil: not checked).
    var layout: HeaderSectionLayout?
    /// The connection's deadlines (nil when the server does not track connections).
    let connection: TrackedConnection?

    init(rawTarget: String, maxBodyBytes: Int, connection: TrackedConnection? = nil) {
        self.rawTarget = rawTarget
        self.connection = connection
        self.machine = RequestStateMachine(maxBodyBytes: maxBodyBytes)
        // Browsers send 10-20 fields: one allocation instead of one per doubling.
        headers.reserveCapacity(16)
    }

    /// The complete request for the responder.
    func makeRequest(body: [UInt8]) -> HTTPRequest {
        HTTPRequest(
            method: method, rawTarget: rawTarget, headers: headers, body: body,
            remoteAddress: remoteAddress, httpVersion: httpVersion)
    }
}
