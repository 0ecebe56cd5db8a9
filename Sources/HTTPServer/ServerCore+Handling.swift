import CMHDShim
import CMicroHTTPD
import JSONSupport

#if canImport(Glibc)
    import Glibc
#endif

extension ServerCore {
    /// Advances one request by one access-handler call; runs on the connection's worker thread.
    func handleCall(
        on connection: OpaquePointer, context: RequestContext,
        method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, chunk: UnsafeRawBufferPointer
    ) -> MHD_Result {
        var action = context.machine.handlerCalled(withUpload: chunk)
        if case .readHead = action {
            action = receiveHead(on: connection, context: context, method: method, version: version)
        } else if !chunk.isEmpty {
            context.connection?.bodyReceived(chunk.count)
        }
        return perform(action, on: connection, context: context)
    }

    /// First call: copies method, version, peer and headers, then validates them.
    private func receiveHead(
        on connection: OpaquePointer, context: RequestContext,
        method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?
    ) -> RequestStateMachine.Action {
        context.method = method.map { InternedTokens.method($0) } ?? ""
        context.httpVersion = version.map { InternedTokens.version($0) } ?? ""
        // Formatted once per connection when it was accepted, not once per request.
        context.remoteAddress = context.connection?.remoteAddress ?? Self.clientAddress(of: connection)
        context.connection?.headReceived()
        let headSize = cmhd_request_header_size(connection)
        // MHD reports the size from the first handler call on; 0 would mean a libmicrohttpd
        // that no longer parses in place, where the walk would reject every request.
        if let method, headSize > 0 {
            let versionLength = version.map { strlen($0) } ?? 0
            context.layout = HeaderSectionLayout(
                start: method, size: headSize, version: version.map(UnsafeRawPointer.init), versionLength: versionLength)
        }
        let contextPointer = Unmanaged.passUnretained(context).toOpaque()
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdCollectHeader, contextPointer)
        if context.fieldSyntax == nil, let layout = context.layout, !layout.finish() {
            context.fieldSyntax = .unaccountedBytes
        }
        if let limit = bodyLimits.limit(forTarget: context.targetBytes) {
            context.machine.useBodyLimit(limit)
        }
        do throws(ProblemDetails) {
            let declaredLength = try headValidation.validate(
                method: context.method, target: context.targetBytes, httpVersion: context.httpVersion,
                framing: context.framing, headerBytes: context.headerBytes, fieldSyntax: context.fieldSyntax)
            return context.machine.headersReceived(problem: nil, declaredContentLength: declaredLength)
        } catch {
            return context.machine.headersReceived(problem: error, declaredContentLength: nil)
        }
    }

    private func perform(_ action: RequestStateMachine.Action, on connection: OpaquePointer, context: RequestContext)
        -> MHD_Result
    {
        switch action {
        case .readMore, .ignore:
            return .YES
        case .readHead:
            // receiveHead always answers with the machine's next action; never performed.
            return .YES
        case .closeTaken:
            // MHD logs its "internal error" line for this on return; mhdLibraryMessage drops it.
            takenCloses.add(1, ordering: .relaxed)
            return .NO
        case .abortConnection:
            log(
                .warning, "http.request_aborted",
                [
                    "reason": .string("body far beyond limit"), "remoteAddress": .string(context.remoteAddress),
                ])
            return .NO
        case .reject(let problem):
            context.connection?.bodyEnded()
            log(
                .info, "http.request_rejected",
                [
                    "status": .number(Double(problem.status.code)), "kind": .string(problem.kind),
                    "remoteAddress": .string(context.remoteAddress), "method": .string(context.method),
                    "targetBytes": .number(Double(context.targetBytes.count)),
                ])
            // Closing is deliberate: the rest of a rejected request is never read.
            return reject(problem, on: connection)
        case .send(let response):
            return send(response, on: connection, forceClose: false, bodyBuffer: context.responseBody)
        case .respond(let body):
            context.connection?.bodyEnded()
            return respond(to: context.makeRequest(body: body), on: connection, context: context)
        }
    }

    private func respond(to request: HTTPRequest, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        switch responder.respond(to: request) {
        case .now(let response):
            context.machine.responseSent()
            return send(response, on: connection, forceClose: false, bodyBuffer: context.responseBody)
        case .later(let work):
            return suspend(connection, context: context, work)
        case .deferred(let start):
            return suspend(connection, context: context, start: start)
        case .takeOver(let start):
            return takeOver(connection, context: context, start: start)
        }
    }

    /// Suspends the connection and hands a duplicate of its socket to `start`: MHD neither
    /// reads nor writes it while suspended, and closes it (without a response, or with the
    /// one the taker answers) once the taker is done.
    private func takeOver(
        _ connection: OpaquePointer, context: RequestContext, start: @Sendable (TakenConnection) -> Void
    ) -> MHD_Result {
        context.hasEscaped = true
        let socket = cmhd_connection_fd(connection)
        let duplicate = socket >= 0 ? fcntl(socket, F_DUPFD_CLOEXEC, 0) : -1
        guard duplicate >= 0 else {
            context.machine.responseSent()
            return reject(.internalError, on: connection)
        }
        guard suspendedConnections.suspend(connection, context: context, takenSocket: duplicate) else {
            close(duplicate)
            context.machine.responseSent()
            return reject(.shuttingDown, on: connection)
        }
        let registry = suspendedConnections
        start(
            TakenConnection(socket: duplicate, remoteAddress: context.remoteAddress) { response in
                // Unregistered before the duplicate closes: shutdown never sees a reused number.
                registry.release(context, with: response)
                close(duplicate)
            })
        return .YES
    }

    /// Suspends the connection and resumes it with the result of `work`, run in a task.
    private func suspend(
        _ connection: OpaquePointer, context: RequestContext, _ work: @escaping @Sendable () async -> HTTPResponse
    ) -> MHD_Result {
        suspend(connection, context: context, start: { respond, _ in Task { respond(await work()) } })
    }

    /// Suspends the connection and hands `start` the function that resumes it with a
    /// response, and the connection's ``ClientPresence``. No task: the caller's own thread (an
    /// event loop) answers.
    private func suspend(
        _ connection: OpaquePointer, context: RequestContext,
        start: @Sendable (@escaping @Sendable (HTTPResponse) -> Void, ClientPresence) -> Void
    ) -> MHD_Result {
        context.hasEscaped = true
        // Read here, on the connection's own thread; the registry polls it only while suspended.
        let socket = cmhd_connection_fd(connection)
        guard suspendedConnections.suspend(connection, context: context, clientSocket: socket) else {
            context.machine.responseSent()
            return reject(.shuttingDown, on: connection)
        }
        let registry = suspendedConnections
        start(
            { response in registry.resume(context, with: response) },
            ClientPresence { registry.clientHasLeft(context) })
        return .YES
    }

    /// Queues `problem` and closes the connection; the prebuilt response when it is a fixed one.
    private func reject(_ problem: ProblemDetails, on connection: OpaquePointer) -> MHD_Result {
        if let native = prebuilt.rejection(for: problem) {
            return MHD_queue_response(connection, UInt32(problem.status.code), native)
        }
        return send(problem.response(typePrefix: configuration.problemTypePrefix), on: connection, forceClose: true)
    }

    /// Queues `response` on the connection (only valid on its worker thread or after resume).
    /// `bodyBuffer`: the connection's reusable body storage, when it has one (keep-alive).
    private func send(
        _ response: HTTPResponse, on connection: OpaquePointer, forceClose: Bool,
        bodyBuffer: ResponseBodyBuffer? = nil
    ) -> MHD_Result {
        let closing = forceClose || isDraining.load(ordering: .relaxed)
        // A prepared response still as prepared goes out prebuilt, unless `Connection: close`
        // must be added to it (the shared prebuilt copy cannot change).
        if !closing, let prepared = response.prepared, let native = prebuilt.native(for: prepared) {
            return MHD_queue_response(connection, UInt32(response.status.code), native)
        }
        if let queued = ResponseQueueing.queue(
            response, on: connection, closeConnection: closing, streams: streamedBodies, bodyBuffer: bodyBuffer)
        {
            return queued
        }
        var fields: JSONObject = ["status": .number(Double(response.status.code))]
        if response.trailers.count > 0 { fields.append("trailers", .number(Double(response.trailers.count))) }
        log(.error, "http.invalid_response", fields)
        if let native = prebuilt.rejection(for: .internalError) {
            return MHD_queue_response(connection, UInt32(ProblemDetails.internalError.status.code), native)
        }
        let fallback = ProblemDetails.internalError.response(typePrefix: configuration.problemTypePrefix)
        return ResponseQueueing.queue(fallback, on: connection, closeConnection: true, streams: streamedBodies) ?? .NO
    }

    static func clientAddress(of connection: OpaquePointer) -> String {
        // INET6_ADDRSTRLEN is 46; a fixed stack-sized buffer avoids a heap allocation.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> String in
            guard let base = buffer.baseAddress, cmhd_client_address(connection, base, buffer.count) == 0 else { return "" }
            return String(cString: base)
        }
    }
}
