import HTTPTypes
import TestSelection
import Testing

@testable import GRPCServer

@Suite("gRPC stream rules", .tags(.sanitizerRelevant))
struct GRPCStreamTests {
    private static let echo: [String: GRPCMethod] = ["/pkg.Service/Echo": { .message(Array($0)) }]

    /// A request fed to the HTTP/2 transport's stream as nghttp2 reports it, then answered by the
    /// unary gRPC layer over it: the two layers' rules together, without a socket.
    private struct Received {
        let stream: H2Stream
        let maxMessageBytes: Int

        func response(methods: [String: GRPCMethod]) -> GRPCUnaryService.Response {
            let service = GRPCUnaryService(
                methods: methods, maxMessageBytes: maxMessageBytes, observer: GRPCServerObserver(event: { _, _ in }))
            return service.response(to: stream.request(remoteAddress: ""), overflow: stream.overflow)
        }
    }

    private func stream(
        _ headers: [(String, String)], body: [UInt8], maxHeaderListBytes: Int = 16_384, maxMessageBytes: Int = 64
    ) -> Received {
        var stream = H2Stream(openedAt: .now, maxHeaderListBytes: maxHeaderListBytes, maxBodyBytes: maxMessageBytes + 5)
        for (name, value) in headers {
            Array(name.utf8).withUnsafeBufferPointer { name in
                Array(value.utf8).withUnsafeBufferPointer { value in stream.header(name: name, value: value) }
            }
        }
        body.withUnsafeBufferPointer { stream.data($0) }
        return Received(stream: stream, maxMessageBytes: maxMessageBytes)
    }

    private let grpcHeaders = [(":method", "POST"), (":path", "/pkg.Service/Echo"), ("content-type", "application/grpc")]

    @Test("one length-prefixed message reaches the method; its answer is the response")
    func unary() {
        #expect(stream(grpcHeaders, body: [0, 0, 0, 0, 2, 7, 8]).response(methods: Self.echo) == .grpc([7, 8]))
    }

    @Test(
        "framing errors are gRPC statuses",
        arguments: [
            ([1, 0, 0, 0, 1, 9], GRPCStatusCode.unimplemented),  // compressed flag
            ([2, 0, 0, 0, 1, 9], .internal),  // undefined flag
            ([0, 0, 0, 0, 5, 9], .internal),  // length says more than was sent
            ([0, 0, 0, 0, 0, 9], .internal),  // a second message (or trailing bytes)
            ([0, 0, 0], .internal),  // no whole prefix
        ] as [([UInt8], GRPCStatusCode)])
    func framing(body: [UInt8], code: GRPCStatusCode) {
        guard case .grpcStatus(let got, _) = stream(grpcHeaders, body: body).response(methods: Self.echo) else {
            Issue.record("not a gRPC status")
            return
        }
        #expect(got == code)
    }

    @Test("an oversized message is RESOURCE_EXHAUSTED, and nothing past the limit is kept")
    func oversized() {
        let big = stream(grpcHeaders, body: [0, 0, 0, 0, 65] + [UInt8](repeating: 1, count: 65))
        #expect(big.stream.body.isEmpty && big.stream.overflow == .body(limit: 69))
        guard case .grpcStatus(.resourceExhausted, _) = big.response(methods: Self.echo) else {
            Issue.record("not RESOURCE_EXHAUSTED")
            return
        }
    }

    @Test("a header list over the limit is RESOURCE_EXHAUSTED")
    func headerList() {
        let headers = grpcHeaders + [("x-big", String(repeating: "a", count: 200))]
        guard
            case .grpcStatus(.resourceExhausted, _) = stream(headers, body: [0, 0, 0, 0, 0], maxHeaderListBytes: 200)
                .response(methods: Self.echo)
        else {
            Issue.record("not RESOURCE_EXHAUSTED")
            return
        }
    }

    @Test("an unknown method is UNIMPLEMENTED")
    func unknownMethod() {
        let headers = [(":method", "POST"), (":path", "/pkg.Service/Nope"), ("content-type", "application/grpc")]
        guard case .grpcStatus(.unimplemented, _) = stream(headers, body: [0, 0, 0, 0, 0]).response(methods: Self.echo)
        else {
            Issue.record("not UNIMPLEMENTED")
            return
        }
    }

    @Test(
        "content types: grpc and grpc+proto (any case, with parameters) are gRPC; the rest is HTTP 415",
        arguments: [
            ("application/grpc", true), ("application/grpc+proto", true), ("Application/GRPC; charset=utf-8", true),
            ("application/grpc+json", false), ("application/json", false), ("application/grpcx", false),
            ("application/grpc ; x=1", true), ("application/ grpc", false), ("application/g\trpc", false),
        ])
    func contentType(value: String, accepted: Bool) {
        let headers = [(":method", "POST"), (":path", "/pkg.Service/Echo"), ("content-type", value)]
        let response = stream(headers, body: [0, 0, 0, 0, 0]).response(methods: Self.echo)
        #expect((response == .grpc([])) == accepted)
        if !accepted {
            #expect(response == .http(status: 415, body: "content-type must be application/grpc or application/grpc+proto\n"))
        }
    }

    @Test("grpc-message is percent-encoded outside printable ASCII and for %")
    func messageEncoding() {
        #expect(GRPCMessageEncoding.percentEncoded("100% é\n") == "100%25 %C3%A9%0A")
    }
}

/// The two layers apart: what the HTTP/2 transport hands over, and how unary gRPC answers as HTTP.
extension GRPCStreamTests {
    @Test("the transport hands over method, path, the regular fields in order and the body; trailers only count")
    func request() {
        var stream = H2Stream(openedAt: .now, maxHeaderListBytes: 16_384, maxBodyBytes: 64)
        let fields = [
            (":method", "POST"), (":scheme", "http"), (":path", "/a/b?c"), (":authority", "x"),
            ("content-type", "application/grpc"), ("te", "trailers"),
        ]
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBufferPointer { name in
                Array(value.utf8).withUnsafeBufferPointer { value in stream.header(name: name, value: value) }
            }
        }
        Array("x-late".utf8).withUnsafeBufferPointer { name in
            Array("1".utf8).withUnsafeBufferPointer { value in stream.header(name: name, value: value, isTrailer: true) }
        }
        ([1, 2] as [UInt8]).withUnsafeBufferPointer { stream.data($0) }
        let request = stream.request(remoteAddress: "::1")
        #expect(request.method == "POST" && request.rawTarget == "/a/b?c" && request.body == [1, 2])
        #expect(request.headers == HTTPHeaders([("content-type", "application/grpc"), ("te", "trailers")]))
        #expect(request.remoteAddress == "::1" && request.httpVersion == "HTTP/2" && stream.overflow == nil)
    }

    @Test("gRPC answers as HTTP responses: a message with grpc-status trailers, Trailers-Only, plain HTTP")
    func responses() {
        let message = GRPCUnaryService.httpResponse(.grpc([7, 8]))
        #expect(message.status == .ok && message.bodyBytes == [0, 0, 0, 0, 2, 7, 8])
        #expect(message.headers == HTTPHeaders([("content-type", "application/grpc")]))
        #expect(message.trailers == HTTPHeaders([("grpc-status", "0")]))
        let status = GRPCUnaryService.httpResponse(.grpcStatus(.notFound, "no %"))
        #expect(status.bodyBytes.isEmpty && status.trailers.count == 0)
        #expect(
            status.headers
                == HTTPHeaders([("content-type", "application/grpc"), ("grpc-status", "5"), ("grpc-message", "no %25")]))
        let plain = GRPCUnaryService.httpResponse(.http(status: 415, body: "no\n"))
        #expect(plain.status.code == 415 && plain.bodyBytes == Array("no\n".utf8) && plain.trailers.count == 0)
    }
}
