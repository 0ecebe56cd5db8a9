import ExtAuthzProtocol
import Testing

@Suite("ext_authz protobuf codec")
struct CheckRequestMessageTests {
    @Test("Envoy's default CheckRequest: the http fields, the headers map and the source address; the rest skipped")
    func envoyDefault() throws {
        let request = try CheckRequestMessage(serialized: CheckRequestFixtures.bytes(CheckRequestFixtures.envoyDefault)[...])
        var expected = CheckRequestMessage(
            method: "GET", path: "/account/logout?next=%2F", host: "app.example.com", scheme: "https",
            httpProtocol: "HTTP/1.1", id: "4114", headers: [(":authority", "app.example.com"), ("accept", "text/html")])
        // The source peer's address, for the decision log; the destination peer is skipped.
        expected.sourceAddress = "10.0.0.7"
        #expect(request == expected)
    }

    @Test("encode_raw_headers: header_map's raw_value, repeated names kept in order")
    func rawHeaders() throws {
        let request = try CheckRequestMessage(serialized: CheckRequestFixtures.bytes(CheckRequestFixtures.rawHeaders)[...])
        #expect(request.method == "POST" && request.path == "/pay" && request.host == "shop.example" && request.scheme == "http")
        #expect(request.headers.map(\.name) == ["x-a", "x-a"])
        #expect(request.headers.map(\.value) == ["1", "2"])
    }

    @Test("a buffered body (string and non-UTF-8 raw bytes) is skipped, not decoded")
    func bodySkipped() throws {
        let request = try CheckRequestMessage(serialized: CheckRequestFixtures.bytes(CheckRequestFixtures.withBody)[...])
        #expect(request.method == "PUT" && request.host == "h" && request.path == "/")
    }

    @Test("the empty message decodes to empty fields (the decision then refuses it)")
    func empty() throws {
        #expect(try CheckRequestMessage(serialized: []) == CheckRequestMessage())
    }

    @Test("every strict prefix of a real request is refused as truncated, never misread")
    func truncation() {
        let bytes = CheckRequestFixtures.bytes(CheckRequestFixtures.envoyDefault)
        for length in 1..<bytes.count {
            // A prefix that ends exactly between top-level fields is a valid (smaller) message;
            // this one has a single top-level field, so every strict prefix is truncated.
            #expect(throws: ProtobufError.self) { try CheckRequestMessage(serialized: bytes[0..<length]) }
        }
    }

    @Test(
        "malformed wire input is refused with a reason",
        arguments: [
            ([0x0B], "group"),  // field 1, wire type 3 (start group)
            ([0x0E], "undefined"),  // wire type 6
            ([0x02, 0x00], "field number 0"),
            // unknown field 2: a 10-byte varint past 64 bits
            ([0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "overflows"),
            ([0x10, 0x80], "truncated varint"),  // unknown field 2
            ([0x0A, 0x05, 0x00], "runs past the end"),
            ([0x08, 0x01], "expected 2"),  // attributes sent as a varint
            ([0x0A, 0x08, 0x22, 0x06, 0x12, 0x04, 0x12, 0x02, 0xC3, 0x28], "UTF-8"),  // method "\xC3\x28"
        ] as [([UInt8], String)])
    func malformed(bytes: [UInt8], reason: String) {
        #expect {
            try CheckRequestMessage(serialized: bytes[...])
        } throws: { error in
            (error as? ProtobufError)?.description.contains(reason) == true
        }
    }

    @Test("unknown fields of every defined wire type are skipped at every level")
    func unknownFields() throws {
        // attributes { request { http { method "GET" ; 99: varint ; 98: fixed64 ; 97: fixed32 } } ; 50: bytes }
        let http: [UInt8] =
            [0x12, 0x03, 0x47, 0x45, 0x54, 0x98, 0x06, 0x01, 0x91, 0x06] + [UInt8](repeating: 0, count: 8) + [
                0x8D, 0x06, 0, 0, 0, 0,
            ]
        let request: [UInt8] = [0x12, UInt8(http.count)] + http
        let attributes: [UInt8] = [0x22, UInt8(request.count)] + request + [0x92, 0x03, 0x01, 0x41]
        let message: [UInt8] = [0x0A, UInt8(attributes.count)] + attributes + [0x10, 0x05]
        #expect(try CheckRequestMessage(serialized: message[...]).method == "GET")
    }

    @Test("a map key sent twice keeps the last value (protobuf map semantics)")
    func mapLastWins() throws {
        let entry: ([UInt8], [UInt8]) -> [UInt8] = { key, value in
            let body = [0x0A, UInt8(key.count)] + key + [0x12, UInt8(value.count)] + value
            return [0x1A, UInt8(body.count)] + body
        }
        let http = entry([0x61], [0x31]) + entry([0x62], [0x32]) + entry([0x61], [0x33])
        let request: [UInt8] = [0x12, UInt8(http.count)] + http
        let attributes: [UInt8] = [0x22, UInt8(request.count)] + request
        let decoded = try CheckRequestMessage(serialized: ([0x0A, UInt8(attributes.count)] + attributes)[...])
        #expect(decoded.headers.map(\.name) == ["a", "b"] && decoded.headers.map(\.value) == ["3", "2"])
    }

    @Test("more headers than the bound are refused")
    func headerBound() {
        var http: [UInt8] = []
        for index in 0...CheckRequestMessage.maxHeaderCount {
            let key = Array("h\(index)".utf8)
            let body = [0x0A, UInt8(key.count)] + key
            http += [0x6A, UInt8(body.count + 2), 0x0A, UInt8(body.count)] + body  // header_map { headers { key } }
        }
        var writer: [UInt8] = []
        func lengthPrefixed(_ tag: UInt8, _ payload: [UInt8]) -> [UInt8] {
            var length = payload.count
            var varint: [UInt8] = []
            while length >= 0x80 {
                varint.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            varint.append(UInt8(length))
            return [tag] + varint + payload
        }
        writer = lengthPrefixed(0x0A, lengthPrefixed(0x22, lengthPrefixed(0x12, http)))
        #expect {
            try CheckRequestMessage(serialized: writer[...])
        } throws: { error in
            (error as? ProtobufError)?.description.contains("more than") == true
        }
    }

    @Test("an allow encodes byte for byte as protobuf serializes it: OK status, ok_response, overwrite")
    func okResponse() {
        let response = CheckResponseMessage.ok(headers: [.init(name: "x-navigation-decision", value: "allow")])
        #expect(response.serialized == CheckRequestFixtures.bytes(CheckRequestFixtures.okResponse))
    }

    @Test("a denial encodes byte for byte: PERMISSION_DENIED, HTTP 302, location, body")
    func deniedResponse() {
        let response = CheckResponseMessage.denied(
            grpcCode: CheckResponseMessage.permissionDenied, httpStatus: 302,
            headers: [.init(name: "Location", value: "https://example.com/")], body: "moved")
        #expect(response.serialized == CheckRequestFixtures.bytes(CheckRequestFixtures.deniedResponse))
    }

    @Test("health: the request's service is read, SERVING encodes as grpc.health.v1 does")
    func health() throws {
        #expect(
            try HealthCheckMessages.service(serialized: CheckRequestFixtures.bytes(CheckRequestFixtures.healthRequest)[...])
                == "envoy.service.auth.v3.Authorization")
        #expect(HealthCheckMessages.response(.serving) == CheckRequestFixtures.bytes(CheckRequestFixtures.healthServing))
    }
}
