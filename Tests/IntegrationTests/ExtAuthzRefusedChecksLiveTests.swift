import Foundation
import TestSelection
import Testing

/// Attack round 8, F6: a check the ext_authz listeners refuse before deciding it (413 and 501 by
/// the HTTP layer, `RESOURCE_EXHAUSTED` by the gRPC transport) is an `invalid` check in
/// `navpolicyd_ext_authz_checks_total`, not only a line of `http_requests_total` or
/// `grpc_requests_total`.
@Suite("ext_authz: checks refused before the check are counted, live", .serialized, .tags(.live, .sanitizerRelevant))
struct ExtAuthzRefusedChecksLiveTests {
    @Test("413 and 501 on the HTTP port, RESOURCE_EXHAUSTED on gRPC: result=\"invalid\"")
    func refusedChecksAreInvalid() throws {
        let (daemon, http, grpc, _) = try MeshJoinLiveTests.start()
        let head = "host: app.example.com\r\nx-forwarded-proto: https\r\nconnection: close\r\n"
        let body = try EdgeHardeningLiveTests.rawResponse(
            port: http, "POST /authz/ HTTP/1.1\r\n" + head + "content-length: 5\r\n\r\nhello")
        #expect(body.status == 413)
        let coding = try EdgeHardeningLiveTests.rawResponse(
            port: http, "GET /authz/ HTTP/1.1\r\n" + head + "transfer-encoding: gzip\r\n\r\n")
        #expect(coding.status == 501)
        let length = 70_000
        let prefix: [UInt8] = [
            0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
        ]
        let big = try ExtAuthzGRPCLiveTests.rawPost(
            grpc, path: "/envoy.service.auth.v3.Authorization/Check", body: prefix + [UInt8](repeating: 0x41, count: length))
        #expect(big.headers["grpc-status"] == "8", "\(big.status) \(big.headers)")
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        for (series, value) in [
            (#"navpolicyd_ext_authz_checks_total{transport="http",result="invalid"}"#, 2.0),
            (#"navpolicyd_ext_authz_checks_total{transport="grpc",result="invalid"}"#, 1),
            (#"navpolicyd_ext_authz_checks_total{transport="http",result="allow"}"#, 0),
            (#"navpolicyd_ext_authz_checks_total{transport="grpc",result="allow"}"#, 0),
            // Still counted where they were before.
            (#"navpolicyd_grpc_requests_total{method="Check",status="8"}"#, 1),
            (#"navpolicyd_http_requests_total{endpoint="rejected",code="413"}"#, 1),
            (#"navpolicyd_http_requests_total{endpoint="rejected",code="501"}"#, 1),
        ] {
            #expect(VisibilityTests.sample(metrics, series) == value, "\(series) in \(metrics)")
        }
    }
}
