import CMHDShim
import CMicroHTTPD
import JSONSupport

// The C entry points libmicrohttpd calls. They are global functions in a library file,
// never closures in a top-level main.swift: those inherit @MainActor isolation and trap
// when MHD calls them from its worker threads. Each one only unwraps its context pointers
// and forwards to Swift code.

/// MHD_OPTION_URI_LOG_CALLBACK: the first callback of every request, with the raw target.
/// Its return value becomes the request's `con_cls`; creating the context here (not in the
/// access handler) guarantees NOTIFY_COMPLETED runs even for requests MHD rejects itself.
func mhdRequestStarted(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.requestsInFlight.add(1, ordering: .relaxed)
    let socketContext = connection.flatMap { cmhd_socket_context($0) }
    let tracked = socketContext.map { Unmanaged<TrackedConnection>.fromOpaque($0).takeUnretainedValue() }
    // MHD parses the query parameters (right after this call) and the header fields into the
    // connection's pool before the access handler: mark the connection so a pool overflow
    // logged in between can be attributed to it.
    tracked?.requestLineReceived()
    cmhd_request_line_started(socketContext, uri)
    let context: RequestContext
    if let reused = tracked?.reusableContext() {
        reused.reset(target: uri, maxBodyBytes: core.configuration.maxBodyBytes)
        context = reused
    } else {
        context = RequestContext(target: uri, maxBodyBytes: core.configuration.maxBodyBytes, connection: tracked)
    }
    return Unmanaged.passRetained(context).toOpaque()
}

/// MHD_OPTION_NOTIFY_CONNECTION: a TCP connection was accepted or is about to be closed.
/// The tracked record lives in the connection's socket context between the two calls.
func mhdConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        let tracked = core.connections.connectionStarted(
            ConnectionHandle(pointer: connection), socket: cmhd_connection_fd(connection),
            remoteAddress: ServerCore.clientAddress(of: connection), subnet: ClientSubnet(connection: connection))
        socketContext.pointee = Unmanaged.passRetained(tracked).toOpaque()
    } else if let pointer = socketContext.pointee {
        let tracked = Unmanaged<TrackedConnection>.fromOpaque(pointer)
        tracked.takeUnretainedValue().dropReusableContext()
        core.connections.connectionClosed(tracked.takeUnretainedValue())
        socketContext.pointee = nil
        tracked.release()
    }
}

/// The accept policy (`MHD_AcceptPolicyCallback`): refuses a peer whose subnet already holds
/// its share of the connections, before MHD sets the connection up.
func mhdAcceptPolicy(_ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> MHD_Result {
    guard let cls else { return .YES }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.connections.accepts(ClientSubnet(address)) ? .YES : .NO
}

/// MHD_OPTION_NOTIFY_COMPLETED: the request is over (sent, rejected, timed out or aborted).
func mhdRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let requestContext, let contextPointer = requestContext.pointee else { return }
    // Balances the retain of mhdRequestStarted.
    let context = Unmanaged<RequestContext>.fromOpaque(contextPointer).takeRetainedValue()
    requestContext.pointee = nil
    context.connection?.requestCompleted()
    if !context.hasEscaped { context.connection?.keepForReuse(context) }
    if let cls {
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestsInFlight.subtract(1, ordering: .relaxed)
    }
}

/// The access handler: called for the headers, each body chunk, the end, and after resume.
func mhdAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let contextPointer = requestContext?.pointee else {
        return .NO
    }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(contextPointer).takeUnretainedValue()
    let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : uploadDataSize.pointee)
    if !chunk.isEmpty { uploadDataSize.pointee = 0 }
    return core.handleCall(
        on: connection, context: context, method: method, version: version, chunk: chunk)
}

/// MHD_KeyValueIteratorN: checks one received header field and appends its bytes to the
/// request context; stops the iteration at the first field that breaks the syntax (the request is
/// rejected, so the rest need not be copied).
func mhdCollectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let context = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
    let nameBytes = UnsafeRawBufferPointer(start: key, count: keySize)
    let valueBytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
    // A name spelled as one of the interned common names is a token (they are literals,
    // tested to be tokens), so only other names go through the token check (≈ 100 each).
    let knownName = InternedTokens.knownFieldName(nameBytes)
    if knownName == nil && !RequestHeadValidation.isToken(nameBytes) {
        context.fieldSyntax = .invalidName
        return .NO
    }
    if !RequestHeadValidation.isFieldValue(valueBytes) {
        context.fieldSyntax = .invalidValue
        return .NO
    }
    if let value, context.layout?.accept(name: key, nameLength: keySize, value: value, valueLength: valueSize) == false {
        context.fieldSyntax = .unaccountedBytes
        return .NO
    }
    // Strings only for the values the head checks read (Content-Length, Transfer-Encoding);
    // the fields stay bytes until a responder reads them.
    context.framing.note(name: nameBytes, value: String(decoding: valueBytes, as: UTF8.self))
    context.receivedHeaders.append(name: nameBytes, value: valueBytes)
    context.headerBytes += keySize + valueSize + 4  // ": " and CRLF
    return .YES
}

/// cmhd_log_sink: one libmicrohttpd log line, already formatted by the C shim.
func mhdLibraryMessage(_ context: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {
    guard let context, let message else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    var text = String(cString: message)
    while text.last?.isNewline == true { text.removeLast() }
    // A tunnel's end (ServerCore+Handling, .closeTaken), not an application error.
    if text == takenCloseMessage, core.consumeTakenClose() { return }
    let admission = core.libraryMessages.admit(now: ConnectionTracker.now())
    if admission.allowed {
        var fields: JSONObject = ["message": .string(text)]
        if admission.suppressedBefore > 0 { fields.append("suppressedBefore", .number(Double(admission.suppressedBefore))) }
        core.log(.warning, "mhd.message", fields)
    }
    if let rejection = LibraryHeadRejection.rejection(forMessage: text) {
        core.answerLibraryRejection(rejection)
    }
}

/// What MHD 0.9.75 logs when the access handler returns `MHD_NO`.
private let takenCloseMessage = "Application reported internal error, closing connection."

/// MHD_ContentReaderCallback of a streamed response: the next bytes of the body.
func mhdStreamRead(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
    guard let cls, let buffer else { return StreamedBody.endWithError }
    let body = Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue()
    return body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
}

/// MHD_ContentReaderCallback of a 304 that declares its 200's length: MHD never reads a 304's
/// body, and if a library version ever did, the connection ends in an error rather than
/// sending bytes the client does not expect.
func mhdNoBodyRead(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
    StreamedBody.endWithError
}

/// MHD_ContentReaderFreeCallback: the response is gone; drops the reference it held.
func mhdStreamFreed(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let body = Unmanaged<StreamedBody>.fromOpaque(cls)
    body.takeUnretainedValue().responseFreed()
    body.release()
}
