import Testing

@testable import NavigationPolicy

/// A cancelling handler's `response` (docs/configuration.md, "Shaping a denial"): read strictly,
/// carried on the decision by every engine, refused with a pointer for every bad value.
@Suite("Handler response: validation and the decision that carries it")
struct DenialResponseTests {
    static func handler(_ response: String, type: String = "cancel", extra: String = "") -> String {
        #"{"handlers": [{"name": "h", "type": ""# + type + #"""# + extra + #", "response": "# + response + "}]}"
    }

    @Test("a valid response: status, lower-cased names in order, removals; the decision carries it, the chain and an image alike")
    func valid() throws {
        let config = Self.handler(
            #"{"status": 404, "headers": {"WWW-Authenticate": "Bearer realm=\"app\"", "X-Reason": "retired"}, "removeRequestHeaders": ["Cookie", "authorization"]}"#
        )
        #expect(configIssues(config) == [])
        for policy in [try compile(config), try loadImage(try compileImage(config, threshold: 1))] {
            let decision = try policy.decide(NavigationRequest(url: "https://a.example/"))
            let response = try #require(decision.response)
            #expect(response.status == 404)
            #expect(response.headers.map(\.name) == ["www-authenticate", "x-reason"])
            #expect(response.headers.first?.value == #"Bearer realm="app""#)
            #expect(response.removeRequestHeaders == ["cookie", "authorization"])
        }
        // Every cancelling type takes it; a redirect keeps its 302 but may add fields.
        for type in ["logout", "about", "cancel"] {
            #expect(configIssues(Self.handler(#"{"status": 401}"#, type: type)) == [], "\(type)")
        }
        #expect(configIssues(Self.handler(#"{"headers": {"Link": "<https://a.example/>"}}"#, type: "payment-redirect")) == [])
    }

    @Test("without response the decision has none; allow handlers take no response")
    func absent() throws {
        let decision = try compile(#"{"handlers": [{"name": "h", "type": "cancel"}]}"#)
            .decide(NavigationRequest(url: "https://a.example/"))
        #expect(decision.response == nil)
        #expect(
            configIssues(#"{"handlers": [{"name": "h", "type": "allow", "response": {"status": 403}}]}"#).first?
                .hasPrefix("/handlers/0/response: unknown field") == true)
    }

    static let refused: [(response: String, pointer: String, extra: String)] = [
        (#"{}"#, "/handlers/0/response", ""),
        (#"{"status": 402}"#, "/handlers/0/response/status", ""),
        (#"{"status": 302}"#, "/handlers/0/response/status", ""),
        (#"{"status": "404"}"#, "/handlers/0/response/status", ""),
        (#"{"status": 404}"#, "/handlers/0/response/status", #", "location": "https://b.example/""#),
        (#"{"stauts": 404}"#, "/handlers/0/response/stauts", ""),
        (#"{"status": 404, "status": 410}"#, "/handlers/0/response/status", ""),
        (#"{"headers": {}}"#, "/handlers/0/response/headers", ""),
        (#"{"headers": {"X-A": "1", "x-a": "2"}}"#, "/handlers/0/response/headers/x-a", ""),
        (#"{"headers": {"X-A": "1", "X-A": "2"}}"#, "/handlers/0/response/headers/X-A", ""),
        (#"{"headers": {"Bad Name": "1"}}"#, "/handlers/0/response/headers/Bad Name", ""),
        (#"{"headers": {"": "1"}}"#, "/handlers/0/response/headers/", ""),
        (#"{"headers": {"X-A": "a\r\nSet-Cookie: x=1"}}"#, "/handlers/0/response/headers/X-A", ""),
        (#"{"headers": {"X-A": "a\u0000b"}}"#, "/handlers/0/response/headers/X-A", ""),
        (#"{"headers": {"X-A": " padded"}}"#, "/handlers/0/response/headers/X-A", ""),
        (#"{"headers": {"X-A": 1}}"#, "/handlers/0/response/headers/X-A", ""),
        (#"{"headers": {"Content-Length": "0"}}"#, "/handlers/0/response/headers/Content-Length", ""),
        (#"{"headers": {"Transfer-Encoding": "chunked"}}"#, "/handlers/0/response/headers/Transfer-Encoding", ""),
        (#"{"headers": {"connection": "close"}}"#, "/handlers/0/response/headers/connection", ""),
        (#"{"headers": {"Location": "https://b.example/"}}"#, "/handlers/0/response/headers/Location", ""),
        (#"{"headers": {"X-Navigation-Decision": "allow"}}"#, "/handlers/0/response/headers/X-Navigation-Decision", ""),
        (
            #"{"headers": {"x-envoy-auth-headers-to-remove": "cookie"}}"#,
            "/handlers/0/response/headers/x-envoy-auth-headers-to-remove", ""
        ),
        // Attack round 8, F9: fields every front end writes, and gRPC's own status fields.
        (#"{"headers": {"Date": "Thu, 01 Jan 2026 00:00:00 GMT"}}"#, "/handlers/0/response/headers/Date", ""),
        (#"{"headers": {"Server": "nginx"}}"#, "/handlers/0/response/headers/Server", ""),
        (#"{"headers": {"grpc-status": "0"}}"#, "/handlers/0/response/headers/grpc-status", ""),
        (#"{"headers": {"Grpc-Message": "fine"}}"#, "/handlers/0/response/headers/Grpc-Message", ""),
        (#"{"removeRequestHeaders": []}"#, "/handlers/0/response/removeRequestHeaders", ""),
        (#"{"removeRequestHeaders": ["Cookie", "cookie"]}"#, "/handlers/0/response/removeRequestHeaders/1", ""),
        (#"{"removeRequestHeaders": ["Host"]}"#, "/handlers/0/response/removeRequestHeaders/0", ""),
        (#"{"removeRequestHeaders": [":path"]}"#, "/handlers/0/response/removeRequestHeaders/0", ""),
        (#"{"removeRequestHeaders": "cookie"}"#, "/handlers/0/response/removeRequestHeaders", ""),
    ]

    @Test("each bad response is refused at its pointer", arguments: refused.indices)
    func refusedAtPointer(_ index: Int) {
        let (response, pointer, extra) = Self.refused[index]
        let issues = configIssues(Self.handler(response, extra: extra))
        #expect(issues.contains { $0.hasPrefix(pointer + ":") }, "\(response): \(issues)")
    }

    @Test("date, server and grpc-* cannot be set, and say why; they may still be removed from the request")
    func responseOnlyNames() {
        let issues = configIssues(Self.handler(#"{"headers": {"grpc-status": "0"}}"#))
        #expect(
            issues == [
                #"/handlers/0/response/headers/grpc-status: "grpc-status" cannot be set by a handler: date and server are written by the front end, grpc-* carry the gRPC listener's own status"#
            ], "\(issues)")
        #expect(configIssues(Self.handler(#"{"removeRequestHeaders": ["Date", "grpc-timeout"]}"#)).isEmpty)
    }

    @Test("a payment-redirect (always a location) takes no status: it answers 302")
    func statusBesideLocation() {
        let issues = configIssues(Self.handler(#"{"status": 451}"#, type: "payment-redirect"))
        #expect(issues.count == 1 && issues[0].hasPrefix("/handlers/0/response/status:"), "\(issues)")
        #expect(issues.first?.contains("302") == true)
    }

    @Test("bounds: 16 fields, 1,024-byte values, 64-byte names, 4,096 bytes in all")
    func bounds() {
        func headers(_ count: Int, value: String = "v", name: (Int) -> String = { "x-h\($0)" }) -> String {
            "{\"headers\": {" + (0..<count).map { "\"\(name($0))\": \"\(value)\"" }.joined(separator: ", ") + "}}"
        }
        #expect(configIssues(Self.handler(headers(16))) == [])
        #expect(configIssues(Self.handler(headers(17))) != [])
        #expect(configIssues(Self.handler(headers(1, value: String(repeating: "v", count: 1024)))) == [])
        #expect(configIssues(Self.handler(headers(1, value: String(repeating: "v", count: 1025)))) != [])
        #expect(configIssues(Self.handler(headers(1, name: { _ in String(repeating: "n", count: 64) }))) == [])
        #expect(configIssues(Self.handler(headers(1, name: { _ in String(repeating: "n", count: 65) }))) != [])
        // 5 × (1,000 + 4): past 4,096 in all though each value fits.
        #expect(configIssues(Self.handler(headers(5, value: String(repeating: "v", count: 1000)))) != [])
        let names = (0..<17).map { "\"h\($0)\"" }.joined(separator: ", ")
        #expect(configIssues(Self.handler("{\"removeRequestHeaders\": [\(names)]}")) != [])
    }
}
