import ExtAuthzProtocol
import GRPCServer
import TestSelection
import Testing

@testable import PolicyService

/// The gRPC front end without a socket: `CheckRequest` bytes in, `CheckResponse` bytes or a
/// gRPC status out; health follows the policy and the drain as `/readyz` does.
@Suite("ext_authz gRPC responder", .tags(.sanitizerRelevant))
struct ExtAuthzGRPCResponderTests {
    static let config = """
        {
          "defaultDecision": "allow",
          "handlers": [
            { "name": "logout", "type": "logout", "match": { "paths": ["/logout"] } },
            { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example.com"] },
              "location": "https://checkout.example.com/open?target={url}" }
          ]
        }
        """

    private func responder(_ harness: ServiceHarness) -> ExtAuthzGRPCResponder {
        let store = harness.store
        return ExtAuthzGRPCResponder(
            check: ExtAuthzCheck(
                decisions: harness.services.decisions(for: .extAuthz), settings: ExtAuthzSettings(), frontend: "ext_authz_grpc"),
            hasPolicy: { store.snapshot != nil }, draining: harness.services.draining)
    }

    /// A length-delimited protobuf field (tags below 16, payloads below 128 bytes: enough here).
    private func field(_ number: UInt8, _ payload: [UInt8]) -> [UInt8] { [number << 3 | 2, UInt8(payload.count)] + payload }

    /// `CheckRequest { attributes { request { http { method, path, host, scheme } } } }`.
    private func checkRequest(method: String, scheme: String, host: String, path: String) -> ArraySlice<UInt8> {
        let http =
            field(2, Array(method.utf8)) + field(4, Array(path.utf8)) + field(5, Array(host.utf8))
            + field(6, Array(scheme.utf8))
        return field(1, field(4, field(2, http)))[...]
    }

    @Test("each Check is the shared mapping's answer, encoded: allow, cancel, cancel with a location, undecidable")
    func checkIsTheSharedMapping() throws {
        let harness = try ServiceHarness(config: Self.config)
        let responder = responder(harness)
        for (host, path, allowed, status) in [
            ("app.example.com", "/home", true, 200), ("app.example.com", "/logout", false, 403),
            ("pay.example.com", "/checkout", false, 302), ("", "/home", false, 400),
        ] {
            let outcome = responder.authorize(checkRequest(method: "GET", scheme: "https", host: host, path: path))
            guard case .message(let bytes) = outcome else {
                Issue.record("\(host)\(path): \(outcome)")
                continue
            }
            // The decision ids differ between two checks; everything else is the same encoding.
            let again = responder.check.check(
                ExtAuthzRequest(method: "GET", scheme: "https", host: host, path: path, headers: []))
            #expect(again.allowed == allowed && again.status == status, "\(host)\(path)")
            let expected = ExtAuthzGRPCResponder.response(for: again).serialized
            #expect(bytes.count == expected.count, "\(host)\(path)")
            if case .denied(let code, let httpStatus, _, _) = ExtAuthzGRPCResponder.response(for: again) {
                #expect(code == CheckResponseMessage.permissionDenied && httpStatus == status)
            }
        }
    }

    @Test("malformed protobuf is INVALID_ARGUMENT, not a decision")
    func malformed() throws {
        let harness = try ServiceHarness(config: Self.config)
        guard case .status(.invalidArgument, let message) = responder(harness).authorize([0x0A, 0x05, 0xFF][...]) else {
            Issue.record("not INVALID_ARGUMENT")
            return
        }
        #expect(message.contains("runs past the end"))
    }

    @Test("no policy: Check is a denial (503), never OK; health is NOT_SERVING")
    func noPolicy() throws {
        let harness = try ServiceHarness(config: nil)
        let responder = responder(harness)
        let answer = responder.check.check(
            ExtAuthzRequest(method: "GET", scheme: "https", host: "app.example.com", path: "/", headers: []))
        #expect(!answer.allowed && answer.status == 503)
        #expect(responder.health([][...]) == .message(HealthCheckMessages.response(.notServing)))
    }

    @Test("health: SERVING with a policy, NOT_SERVING once the drain begins, NOT_FOUND for another service")
    func health() throws {
        let harness = try ServiceHarness(config: Self.config)
        let responder = responder(harness)
        let authorization = Array("envoy.service.auth.v3.Authorization".utf8)
        #expect(responder.health([][...]) == .message(HealthCheckMessages.response(.serving)))
        #expect(responder.health(field(1, authorization)[...]) == .message(HealthCheckMessages.response(.serving)))
        guard case .status(.notFound, _) = responder.health(field(1, Array("other.Service".utf8))[...]) else {
            Issue.record("an unknown service was not NOT_FOUND")
            return
        }
        harness.services.draining.begin()
        #expect(responder.health([][...]) == .message(HealthCheckMessages.response(.notServing)))
    }
}
