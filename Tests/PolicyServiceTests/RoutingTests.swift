import HTTPServer
import Testing

@testable import PolicyService

/// What the route table answers before any handler runs.
@Suite("route table")
struct RoutingTests {
    @Test("the table registers every declared endpoint, in the order the 404 lists them")
    func tableMatchesTheCatalogue() throws {
        let harness = try ServiceHarness()
        #expect(harness.api.routes.routes.map(\.template) == RouteDeclaration.all.map(\.path))
    }

    @Test("an unknown path is 404 not-found, listing the endpoints, counted as endpoint \"other\"")
    func unknownPath() async throws {
        let harness = try ServiceHarness()
        for path in ["/nope", "/v1/intake/", "/v1/intake/1/2", "/v1/decide/extra", "/V1/decide"] {
            let response = await harness.send("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(response.problemKind == "not-found")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(
                response.object["detail"]?.stringValue?.hasSuffix(
                    RouteDeclaration.all.map(\.path).joined(separator: ", ")) == true)
        }
        #expect(await harness.metricsText().contains(#"navpolicyd_http_requests_total{endpoint="other",code="404"} 5"#))
    }

    @Test(
        "a method a route lacks is 405 with Allow in declaration order",
        arguments: [
            ("DELETE", "/v1/decide", "GET, HEAD, POST"), ("GET", "/v1/policy/reload", "POST"),
            ("POST", "/v1/policy", "GET, HEAD"), ("POST", "/healthz", "GET, HEAD"), ("PUT", "/readyz", "GET, HEAD"),
            ("POST", "/metrics", "GET, HEAD"), ("PUT", "/v1/intake", "GET, POST"), ("HEAD", "/v1/intake", "GET, POST"),
            ("GET", "/v1/intake/share-target", "POST"), ("POST", "/v1/intake/12", "GET, DELETE"),
            ("POST", "/v1/authz", "GET, HEAD"),
        ])
    func methodNotAllowed(method: String, path: String, allow: String) async throws {
        // The admin token is set: 405 must come before authorization.
        let harness = try ServiceHarness(adminToken: serviceTestToken, requireTokenForDecide: true)
        let response = await harness.send(method, path)
        #expect(response.status == 405)
        #expect(response.problemKind == "method-not-allowed")
        #expect(response.headers["Allow"] == allow)
        #expect(response.headers.count(of: "Allow") == 1)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(
            response.object["detail"]?.stringValue
                == "\(path.hasPrefix("/v1/intake/1") ? "/v1/intake/{id}" : path) accepts \(allow), not \(method).")
    }

    @Test("a route with a parameter matches one non-empty segment, literal routes first")
    func parameters() throws {
        let harness = try ServiceHarness()
        let item = try #require(harness.api.routes.match("/v1/intake/42"))
        #expect(item.route.template == "/v1/intake/{id}" && item.parameters == ["id": "42"])
        #expect(harness.api.routes.match("/v1/intake/share-target")?.route.template == "/v1/intake/share-target")
        #expect(harness.api.routes.match("/v1/intake/%7Bid%7D")?.parameters == ["id": "%7Bid%7D"])
        #expect(harness.api.routes.match("/v1/intake/") == nil)
    }

    @Test("the check of a route's declared access runs before the handler, once per request")
    func accessCheck() async throws {
        let guardedRoute = RouteDeclaration("/guarded", ["GET"], on: .api, access: .admin, summary: "")
        let openRoute = RouteDeclaration("/open", ["GET"], on: .api, access: .open, summary: "")
        var handlers = RouteHandlers()
        handlers.on("GET", route: guardedRoute) { _ throws(ServiceProblem) in .now(.empty()) }
        handlers.on("GET", route: openRoute) { _ throws(ServiceProblem) in .now(.empty(status: 200)) }
        let table = RouteTable([guardedRoute, openRoute], handlers: handlers) { access -> RouteCheck? in
            guard access == .admin else { return nil }
            return { request, _ throws(ServiceProblem) in
                guard request.headers["X-Pass"] != nil else { throw ServiceProblem(.noPolicy) }
            }
        }
        let guarded = try #require(table.match("/guarded")?.route.handler(for: "GET"))
        #expect(throws: ServiceProblem.self) {
            try guarded(RoutedRequest(http: HTTPRequest(method: "GET", rawTarget: "/guarded")))
        }
        let passed = try guarded(
            RoutedRequest(http: HTTPRequest(method: "GET", rawTarget: "/guarded", headers: HTTPHeaders([("X-Pass", "1")]))))
        guard case .now(let response) = passed else { throw HarnessFailure("expected an answer now") }
        #expect(response.status == 204)
        #expect(table.match("/open")?.route.methods == ["GET"])
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
