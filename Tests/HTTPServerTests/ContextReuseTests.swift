import Testing

@testable import HTTPServer

/// A keep-alive connection reuses its request context (and header storage) for the next request.
@Suite struct ContextReuseTests {
    private func makeConnection() -> TrackedConnection? {
        guard let pointer = OpaquePointer(bitPattern: 0x1000) else { return nil }
        let limits = ConnectionLimits(
            headTimeoutMilliseconds: 1_000, idleTimeoutMilliseconds: 1_000, minBodyBytesPerSecond: 0,
            bodyGraceMilliseconds: 0)
        return TrackedConnection(
            handle: ConnectionHandle(pointer: pointer), socket: -1, remoteAddress: "127.0.0.1", limits: limits, now: 0)
    }

    @Test func aFinishedContextIsReusedOnlyWhenNothingElseHoldsIt() throws {
        let connection = try #require(makeConnection())
        #expect(connection.reusableContext() == nil)
        var first: RequestContext? = RequestContext(rawTarget: "/a", maxBodyBytes: 10, connection: connection)
        let firstIdentity = first.map(ObjectIdentifier.init)
        first?.headers.add(name: "X-A", value: "1")
        if let first { connection.keepForReuse(first) }
        first = nil
        let reused = try #require(connection.reusableContext())
        #expect(ObjectIdentifier(reused) == firstIdentity)
        reused.reset(rawTarget: "/b", maxBodyBytes: 10)
        #expect(reused.rawTarget == "/b" && reused.headers.count == 0 && reused.method.isEmpty)
        // Taken: not handed out twice.
        #expect(connection.reusableContext() == nil)
        // Still referenced elsewhere (as a suspended request's task would): not reused.
        connection.keepForReuse(reused)
        withExtendedLifetime(reused) { #expect(connection.reusableContext() == nil) }
        connection.keepForReuse(RequestContext(rawTarget: "/c", maxBodyBytes: 10, connection: connection))
        connection.dropReusableContext()
        #expect(connection.reusableContext() == nil)
    }

    struct HeaderEcho: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponse {
            .text("\(request.path) \(request.headers["X-A"] ?? "-") \(request.headers.count)")
        }
    }

    @Test func aReusedContextCarriesNothingOverFromThePreviousRequest() throws {
        let (server, port) = try startServer(responder: HeaderEcho())
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let request =
            "GET /one HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-B: 2\r\n\r\n"
            + "GET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let answer = rawExchange(port: port, Array(request.utf8))
        #expect(answer.contains("/one 1 3"))
        #expect(answer.contains("/two - 2"))
    }
}
