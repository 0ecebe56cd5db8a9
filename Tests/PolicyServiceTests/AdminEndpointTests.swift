import Foundation
import HTTPServer
import JSONSupport
import TestSelection
import Testing

@testable import PolicyService

@Suite("policy administration and probes in-process", .tags(.sanitizerRelevant))
struct AdminEndpointTests {
    @Test("healthz answers the bytes and header fields the JSON tree gave, built once")
    func healthzPrebuilt() async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/healthz")
        #expect(response.status == 200)
        #expect(response.bodyBytes == JSONValue.object(["status": .string("ok")]).serializedBytes)
        #expect(Array(response.headers.map(\.name)) == ["Content-Type", "Cache-Control"])
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test("healthz, readyz, policy and metrics answer 200; readyz turns 503 not-ready when draining")
    func probes() async throws {
        let harness = try ServiceHarness()
        #expect(await harness.send("GET", "/healthz").object["status"]?.stringValue == "ok")
        let ready = await harness.send("HEAD", "/readyz")
        #expect(ready.status == 200 && ready.object["policyRevision"]?.stringValue == harness.store.snapshot?.revision)
        let policy = await harness.send("GET", "/v1/policy")
        #expect(policy.status == 200)
        #expect(policy.object["handlers"]?.arrayValue?.count == 2)
        #expect(policy.object["configPath"]?.stringValue == harness.configPath)
        let metrics = await harness.send("GET", "/metrics")
        #expect(metrics.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(metrics.text.contains("navpolicyd_open_connections 3\n"))
        #expect(metrics.text.contains("navpolicyd_policy_handlers 2\n"))
        harness.api.beginDraining()
        let draining = await harness.send("GET", "/readyz")
        #expect(draining.status == 503 && draining.problemKind == "not-ready")
    }

    @Test("reload: 200 unchanged, 200 reloaded, 422 invalid-config keeping the active revision")
    func reload() async throws {
        let harness = try ServiceHarness()
        let unchanged = await harness.send("POST", "/v1/policy/reload")
        #expect(unchanged.status == 200)
        #expect(unchanged.object["result"]?.stringValue == "unchanged")
        try serviceTestConfig.replacing(#""allow""#, with: #""cancel""#)
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let reloaded = await harness.send("POST", "/v1/policy/reload")
        #expect(reloaded.object["result"]?.stringValue == "reloaded")
        let active = harness.store.snapshot?.revision
        try "{ not json".write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let failed = await harness.send("POST", "/v1/policy/reload")
        #expect(failed.status == 422)
        #expect(failed.problemKind == "invalid-config")
        #expect(failed.object["activeRevision"]?.stringValue == active)
        #expect(failed.object["errors"]?.arrayValue?.isEmpty == false)
        #expect(failed.headers["Cache-Control"] == "no-store")
        #expect(
            await harness.metricsText().contains(#"navpolicyd_http_requests_total{endpoint="/v1/policy/reload",code="422"} 1"#))
    }

    @Test("reload with an admin token: 401 without it (before any reload), 200 with it")
    func reloadToken() async throws {
        let harness = try ServiceHarness(adminToken: serviceTestToken)
        try "{ not json".write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let missing = await harness.send("POST", "/v1/policy/reload")
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd""#)
        #expect(missing.object["detail"]?.stringValue == "Send Authorization: Bearer <admin token>.")
        #expect(harness.store.lastReloadFailure == nil)
        let authorized = await harness.send(
            "POST", "/v1/policy/reload", headers: [("Authorization", "Bearer " + serviceTestToken)])
        #expect(authorized.status == 422)
        // The policy and probes stay readable without the token.
        #expect(await harness.send("GET", "/v1/policy").status == 200)
    }

    @Test("two Authorization fields never authorize, in either order, even when one holds the token")
    func repeatedAuthorization() async throws {
        let harness = try ServiceHarness(adminToken: serviceTestToken)
        let good = ("Authorization", "Bearer " + serviceTestToken)
        let bad = ("Authorization", "Bearer not-the-token")
        for headers in [[good, bad], [bad, good], [good, good]] {
            let response = await harness.send("POST", "/v1/policy/reload", headers: headers)
            #expect(response.status == 401)
            #expect(response.object["detail"]?.stringValue == "Send one Authorization field.")
        }
        #expect(AuthFailureLog.reason(for: [good.1, bad.1]) == .malformed)
    }
}

@Suite("/v1/authz in-process")
struct AuthzEndpointTests {
    @Test("204 allows, 403 navigation-cancelled cancels; both carry the decision headers")
    func decisions() async throws {
        let harness = try ServiceHarness()
        let allowed = await harness.send(
            "GET", "/v1/authz",
            headers: [("X-Original-URI", "/home"), ("X-Forwarded-Host", "a.example"), ("X-Forwarded-Proto", "https")])
        #expect(allowed.status == 204)
        #expect(allowed.headers["X-Navigation-Decision"] == "allow")
        #expect(allowed.headers["X-Navigation-Decision-Id"]?.count == 21)
        let cancelled = await harness.send("GET", "/v1/authz", headers: [("X-Original-URL", "https://a.example/logout")])
        #expect(cancelled.status == 403)
        #expect(cancelled.problemKind == "navigation-cancelled")
        #expect(cancelled.object["decision"]?["handler"]?.stringValue == "logout")
        #expect(cancelled.headers["X-Navigation-Handler"] == "logout")
        #expect(cancelled.headers["Cache-Control"] == "no-store")
    }

    @Test(
        "missing, repeated or contradictory target fields are 400 invalid-request",
        arguments: [
            ([], "X-Original-URI"),
            ([("X-Original-URL", "https://a.example/"), ("X-Original-URL", "https://b.example/")], "X-Original-URL"),
            ([("X-Original-URL", "https://a.example/"), ("X-Original-URI", "/")], "X-Original-URL"),
            ([("X-Original-URI", "/"), ("X-Forwarded-Proto", "https")], "X-Forwarded-Host"),
            (
                [("X-Original-URI", "/"), ("X-Forwarded-Host", "a.example@b.example"), ("X-Forwarded-Proto", "https")],
                "X-Forwarded-Host"
            ),
            ([("X-Original-URI", "/"), ("X-Forwarded-Host", "a.example"), ("X-Forwarded-Proto", "ftp")], "X-Forwarded-Proto"),
            // nginx forwards `GET /#/../logout` as it came, while the URL parser ends the path
            // at `#` and would decide `/` (attack round 7, F6).
            (
                [("X-Original-URI", "/#/../logout"), ("X-Forwarded-Host", "a.example"), ("X-Forwarded-Proto", "https")],
                "X-Original-URI"
            ),
            (
                [("X-Original-URI", "/a\tb"), ("X-Forwarded-Host", "a.example"), ("X-Forwarded-Proto", "https")],
                "X-Original-URI"
            ),
            ([("X-Original-URL", "https://a.example/ok#/../logout")], "X-Original-URL"),
        ] as [([(String, String)], String)])
    func invalidTargets(headers: [(String, String)], field: String) async throws {
        let harness = try ServiceHarness()
        let response = await harness.send("GET", "/v1/authz", headers: headers)
        #expect(response.status == 400)
        #expect(response.problemKind == "invalid-request")
        #expect(response.object["field"]?.stringValue == field)
    }

    @Test("requireTokenForDecide guards /v1/authz like /v1/decide")
    func token() async throws {
        let harness = try ServiceHarness(adminToken: serviceTestToken, requireTokenForDecide: true)
        let response = await harness.send("GET", "/v1/authz", headers: [("X-Original-URL", "https://a.example/")])
        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="navpolicyd""#)
    }
}
