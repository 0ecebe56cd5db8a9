import TestSelection
import Testing

@testable import GRPCServer

@Suite("gRPC stream rules", .tags(.sanitizerRelevant))
struct GRPCStreamTests {
    private static let echo: [String: GRPCMethod] = ["/pkg.Service/Echo": { .message(Array($0)) }]

    private func stream(
        _ headers: [(String, String)], body: [UInt8], maxHeaderListBytes: Int = 16_384, maxMessageBytes: Int = 64
    ) -> GRPCStream {
        var stream = GRPCStream(openedAt: .now, maxHeaderListBytes: maxHeaderListBytes, maxMessageBytes: maxMessageBytes)
        for (name, value) in headers {
            Array(name.utf8).withUnsafeBufferPointer { name in
                Array(value.utf8).withUnsafeBufferPointer { value in stream.header(name: name, value: value) }
            }
        }
        body.withUnsafeBufferPointer { stream.data($0) }
        return stream
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
        #expect(big.body.isEmpty && big.bodyTooLarge)
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
