import TestSelection
import Testing

@testable import HTTPServer

/// A keep-alive connection reuses its request context (and header storage) for the next request.
@Suite(.tags(.live, .sanitizerRelevant, .optimized)) struct ContextReuseTests {
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
        var first: RequestContext? = RequestContext(target: "/a", maxBodyBytes: 10, connection: connection)
        let firstIdentity = first.map(ObjectIdentifier.init)
        Array("X-A1".utf8).withUnsafeBytes {
            first?.receivedHeaders.append(name: .init(rebasing: $0[..<3]), value: .init(rebasing: $0[3...]))
        }
        if let first { connection.keepForReuse(first) }
        first = nil
        let reused = try #require(connection.reusableContext())
        #expect(ObjectIdentifier(reused) == firstIdentity)
        reused.reset(target: "/b", maxBodyBytes: 10)
        #expect(reused.targetBytes == Array("/b".utf8) && reused.receivedHeaders.count == 0 && reused.method.isEmpty)
        // Taken: not handed out twice.
        #expect(connection.reusableContext() == nil)
        // Still referenced elsewhere (as a suspended request's task would): not reused.
        connection.keepForReuse(reused)
        withExtendedLifetime(reused) { #expect(connection.reusableContext() == nil) }
        connection.keepForReuse(RequestContext(target: "/c", maxBodyBytes: 10, connection: connection))
        connection.dropReusableContext()
        #expect(connection.reusableContext() == nil)
    }

    @Test func theTargetBufferIsRefilledInPlaceAndNeverUnderARequestThatStillHoldsIt() {
        let context = RequestContext(target: "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fhome", maxBodyBytes: 10)
        var request: HTTPRequest? = context.makeRequest(body: [])
        // A request still holding the bytes (a responder that kept it) keeps its own target.
        context.reset(target: "/healthz", maxBodyBytes: 10)
        #expect(request?.rawTarget == "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fhome")
        #expect(request?.path == "/v1/decide")
        #expect(context.targetBytes == Array("/healthz".utf8))
        // Once the request is gone the storage is unique: the next target is written into it.
        request = context.makeRequest(body: [])
        #expect(request?.rawTarget == "/healthz")
        request = nil
        let refilled = context.targetBytes.withUnsafeBufferPointer { $0.baseAddress }
        context.reset(target: "/v1/decide?url=x", maxBodyBytes: 10)
        #expect(context.targetBytes.withUnsafeBufferPointer { $0.baseAddress } == refilled)
        #expect(context.targetBytes == Array("/v1/decide?url=x".utf8))
    }

    @Test func aTargetThatIsNotUTF8IsRepairedAsAStringWouldBe() {
        let sent: [CChar] = [0x2F, 0x61, -1, 0x3F, 0x71, -62, 0]  // "/a\xFF?q\xC2"
        let context = sent.withUnsafeBufferPointer { RequestContext(target: $0.baseAddress, maxBodyBytes: 10) }
        #expect(context.targetBytes == Array("/a\u{FFFD}?q\u{FFFD}".utf8))
        let request = context.makeRequest(body: [])
        #expect(request.path == "/a\u{FFFD}" && request.query == "q\u{FFFD}")
        context.reset(target: nil, maxBodyBytes: 10)
        #expect(context.targetBytes.isEmpty)
    }

    private func received(_ context: RequestContext, _ name: String, _ value: [UInt8]) {
        Array(name.utf8).withUnsafeBytes { name in
            value.withUnsafeBytes { context.receivedHeaders.append(name: name, value: $0) }
        }
    }

    @Test func receivedFieldsBecomeTheStringsTheCollectorMadeInOrder() {
        let context = RequestContext(target: "/", maxBodyBytes: 10)
        received(context, "Host", Array("a.test".utf8))
        received(context, "user-agent", Array("curl/8 with a value longer than fifteen bytes".utf8))
        received(context, "X-Bin", [0x61, 0xFF, 0x62])
        received(context, "X-Empty", [])
        received(context, "host", Array("b.test".utf8))
        let request = context.makeRequest(body: [])
        let expected = HTTPHeaders([
            ("Host", "a.test"), ("user-agent", "curl/8 with a value longer than fifteen bytes"), ("X-Bin", "a\u{FFFD}b"),
            ("X-Empty", ""), ("host", "b.test"),
        ])
        #expect(request.headers == expected)
        #expect(request.headers.map(\.name) == ["Host", "user-agent", "X-Bin", "X-Empty", "host"])
        #expect(request.headers["HOST"] == "a.test" && request.headers.count(of: "Host") == 2)
        // Setting or changing the fields of a received request replaces them.
        var changed = request
        changed.headers.add(name: "X-New", value: "1")
        #expect(changed.headers.count == 6 && request.headers.count == 5)
        changed.headers = HTTPHeaders()
        #expect(changed.headers.count == 0 && request.headers == expected)
    }

    @Test func oneFieldIsReadFromTheBytesAsTheSubscriptWouldFindIt() {
        let context = RequestContext(target: "/", maxBodyBytes: 10)
        received(context, "Content-Typo", Array("text/plain".utf8))
        received(context, "content-TYPE", Array("application/json; charset=utf-8".utf8))
        received(context, "Content-Type", Array("text/html".utf8))
        received(context, "X-Bin", [0x61, 0xFF, 0x62])
        received(context, "X-Empty", [])
        let request = context.makeRequest(body: [])
        let given = HTTPRequest(method: "GET", rawTarget: "/", headers: request.headers)
        for candidate in [request, given] {
            func read(_ name: HTTPFieldName) -> [UInt8]? { candidate.withFirstHeaderValue(named: name) { Array($0) } }
            // The first field of that name in any case, as `headers[name]` returns it.
            #expect(read("Content-Type") == Array("application/json; charset=utf-8".utf8))
            #expect(read("CONTENT-type") == read("content-type"))
            #expect(read("X-Empty") == [])
            #expect(read("Content-Typ") == nil && read("Content-Types") == nil && read("Accept") == nil)
            // Only letters fold: "\r" (0x0D) and "-" (0x2D) differ in the case bit alone.
            #expect(read("Content\rType") == nil)
        }
        // The received bytes as sent; the Strings replace what is not UTF-8.
        #expect(request.withFirstHeaderValue(named: "x-bin") { Array($0) } == [0x61, 0xFF, 0x62])
        #expect(given.withFirstHeaderValue(named: "x-bin") { Array($0) } == Array("a\u{FFFD}b".utf8))
    }

    @Test func receivedFieldsGrowPastTheirFirstStorageAndKeepEveryByte() {
        let context = RequestContext(target: "/", maxBodyBytes: 10)
        var expected: [(String, String)] = []
        for index in 0..<40 {
            let value = String(repeating: Character(UnicodeScalar(UInt8(65 + index % 26))), count: 100 + index)
            received(context, "X-Field-\(index)", Array(value.utf8))
            expected.append(("X-Field-\(index)", value))
        }
        #expect(context.makeRequest(body: []).headers == HTTPHeaders(expected))
        context.reset(target: "/", maxBodyBytes: 10)
        received(context, "Host", Array("a".utf8))
        #expect(context.makeRequest(body: []).headers == HTTPHeaders([("Host", "a")]))
    }

    @Test func aRequestStillHoldingItsFieldsKeepsThemWhenTheContextIsReused() {
        let context = RequestContext(target: "/a", maxBodyBytes: 10)
        received(context, "X-A", Array("1".utf8))
        let held = context.makeRequest(body: [])
        // The next request of the connection while `held` is alive (a task kept it).
        context.reset(target: "/b", maxBodyBytes: 10)
        received(context, "X-B", Array("2".utf8))
        #expect(held.headers == HTTPHeaders([("X-A", "1")]))
        #expect(context.makeRequest(body: []).headers == HTTPHeaders([("X-B", "2")]))
        // Nothing holds the fields any more: emptied in place.
        context.reset(target: "/c", maxBodyBytes: 10)
        #expect(context.receivedHeaders.count == 0 && context.makeRequest(body: []).headers.count == 0)
    }

    struct HeaderEcho: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponderResult {
            .now(.text("\(request.path) \(request.headers["X-A"] ?? "-") \(request.headers.count)"))
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
