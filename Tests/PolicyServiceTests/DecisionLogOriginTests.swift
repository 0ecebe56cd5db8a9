import Foundation
import JSONSupport
import NavigationPolicy
import TestSelection
import Testing

@testable import PolicyService

/// The decision log's join fields (issue 45, item 3): `frontend`, `clientAddress`, `requestId`,
/// and the bounds on what a client can put in them.
@Suite("decision log origin fields", .tags(.sanitizerRelevant))
struct DecisionLogOriginTests {
    static func line(_ origin: DecisionOrigin, url: String = "https://a.example/ok") throws -> JSONObject {
        let snapshot = try PolicySnapshot.build(from: Array(serviceTestConfig.utf8)).get()
        let navigation = NavigationRequest(url: url, method: "GET")
        let decision = try snapshot.policy.decide(navigation, explain: false)
        let bytes = DecisionRecorder.logLine(
            decision, for: navigation, id: DecisionID(prefix: 0xabcd, sequence: 1), origin: origin,
            revision: snapshot.revision, redaction: snapshot.logRedaction, at: Date())
        return try #require(try JSONParser().parse(bytes).objectValue, "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("every front end's name, the address and the request id, after decisionId and before request")
    func fields() throws {
        for frontEnd in DecisionFrontEnd.allCases {
            let object = try Self.line(DecisionOrigin(frontEnd, clientAddress: "2001:db8::7", requestID: "r-1"))
            #expect(object["frontend"] == .string(frontEnd.rawValue))
            #expect(object["clientAddress"] == .string("2001:db8::7"))
            #expect(object["requestId"] == .string("r-1"))
            #expect(Array(object.keys.prefix(6)) == ["time", "decisionId", "frontend", "clientAddress", "requestId", "request"])
        }
        #expect(
            DecisionFrontEnd.allCases.map(\.rawValue)
                == ["decide", "authz", "proxy", "tunnel", "intake", "ext_authz_http", "ext_authz_grpc"])
        let unknown = try Self.line(DecisionOrigin(.intake, clientAddress: ""))
        #expect(unknown["clientAddress"] == .null && unknown["requestId"] == .null)
        let idOnly = try Self.line(DecisionOrigin(.extAuthzGRPC, clientAddress: "", requestID: "x"))
        #expect(idOnly["clientAddress"] == .null && idOnly["requestId"] == .string("x"))
        // Redaction still marks the line, with the new fields in front of the URLs.
        let redacted = try Self.line(
            DecisionOrigin(.decide, clientAddress: "127.0.0.1"), url: "https://u:secret@a.example/")
        #expect(redacted["redacted"] == .bool(true) && redacted["clientAddress"] == .string("127.0.0.1"))
    }

    @Test("a request id is logged only as 1-128 bytes of visible ASCII without quote or backslash")
    func requestIDBounds() {
        #expect(DecisionOrigin.requestID("8d2f6a1c-3b7e-4c55-9a0e-1f2d3c4b5a69") == "8d2f6a1c-3b7e-4c55-9a0e-1f2d3c4b5a69")
        let longest = String(repeating: "a", count: DecisionOrigin.maximumRequestIDBytes)
        #expect(DecisionOrigin.requestID(longest) == longest)
        for refused in [
            nil, "", longest + "a", "a b", "a\u{7}b", "a\nb", "a\"b", "a\\b", "é", "a\u{7F}",
            String(repeating: "x", count: 100_000),
        ] {
            #expect(DecisionOrigin.requestID(refused) == nil, "\(String(describing: refused))")
        }
    }

    @Test("an address from a field is logged only when it reads as one; X-Forwarded-For gives its last entry")
    func addressBounds() {
        #expect(DecisionOrigin.address("203.0.113.9") == "203.0.113.9")
        #expect(DecisionOrigin.address(" 2001:db8::1 ") == "2001:db8::1")
        #expect(DecisionOrigin.address("fe80::1%eth0") == "fe80::1%eth0")
        #expect(DecisionOrigin.address("[::1]") == "[::1]")
        for refused in [
            "", "a\"b", "1.2.3.4\n", "x y", String(repeating: "1", count: 65), "<script>", "localhost", "0x7f.1",
            "1.2.3.4:80", "01.02.03.004", "2001:db8::12001:db8::1", "1.2.3.4%eth0", "fe80::1%",
        ] {
            #expect(DecisionOrigin.address(refused[...]) == "", "\(refused)")
        }
        #expect(DecisionOrigin.lastForwardedFor(["198.51.100.1, 10.0.0.1", "203.0.113.9"]) == "203.0.113.9")
        #expect(DecisionOrigin.lastForwardedFor(["spoofed, 203.0.113.9"]) == "203.0.113.9")
        #expect(DecisionOrigin.lastForwardedFor(["203.0.113.9, evil\"x"]) == "")
        #expect(DecisionOrigin.lastForwardedFor([]) == "")
    }

    @Test("what reaches the writer unchecked is escaped: the line stays one valid JSON line")
    func escaping() throws {
        let object = try Self.line(DecisionOrigin(.proxy, clientAddress: "a\"b\n\u{1}", requestID: "q\"\u{7F}"))
        #expect(object["clientAddress"] == .string("a\"b\n\u{1}"))
        #expect(object["requestId"] == .string("q\"\u{7F}"))
    }
}

extension DecisionLogOriginTests {
    @Test("a plain GET's request members are the bytes the general path writes")
    func plainGETLiteral() throws {
        let snapshot = try PolicySnapshot.build(from: Array(serviceTestConfig.utf8)).get()
        func line(_ navigation: NavigationRequest) throws -> String {
            let decision = try snapshot.policy.decide(navigation, explain: false)
            return String(
                decoding: DecisionRecorder.logLine(
                    decision, for: navigation, id: DecisionID(prefix: 1, sequence: 1),
                    origin: DecisionOrigin(.decide, clientAddress: "::1"), revision: snapshot.revision,
                    redaction: snapshot.logRedaction, at: Date(timeIntervalSince1970: 0)), as: UTF8.self)
        }
        // The fast literal, and a request that differs only by its method: the general path
        // must write the same members with PUT in place of GET.
        let fast = try line(NavigationRequest(url: "https://a.example/x", method: "GET"))
        let general = try line(NavigationRequest(url: "https://a.example/x", method: "PUT"))
        #expect(
            fast.contains(
                #""request":{"url":"https://a.example/x","method":"GET","navigationType":"other","#
                    + #""targetFrame":"main","sourceURL":null},"decision":{"#))
        #expect(general.replacingOccurrences(of: #""method":"PUT""#, with: #""method":"GET""#) == fast)
    }
}
