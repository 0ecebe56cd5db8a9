import HTTPServer
import TestScratchSupport
import Testing

@testable import PolicyService

/// One declaration list (``RouteDeclaration/all``) and everything made from it: the route
/// tables the daemon builds, the metrics' endpoint labels, `serve --help`'s list and
/// docs/api.md's endpoint table. A route added in one place but not the other fails here.
@Suite("route catalogue")
struct RouteCatalogueTests {
    @Test("docs/api.md's endpoint table is the one rendered from the declarations")
    func apiTableIsGenerated() throws {
        let mismatch = try GeneratedDocSection.mismatch(
            "endpoints", in: "docs/api.md", expected: RouteDeclaration.endpointTable)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test(
        "every declared method of every route the surface serves has a handler, and every handler a declaration",
        arguments: [PolicyAPI.Surface.all, .api, .admin])
    func declarationsAndHandlersAgree(surface: PolicyAPI.Surface) throws {
        let harness = try ServiceHarness()
        let table = harness.services.api(surface).routes
        #expect(table.mismatches == [])
        let served = RouteDeclaration.all.filter { $0.isServed(on: surface) }
        #expect(table.routes.map(\.template) == served.map(\.path))
        #expect(table.routes.map(\.methods) == served.map(\.methods))
    }

    @Test("the declarations are distinct paths, and the metrics count each under its path")
    func metricsLabelsAreTheDeclaredPaths() {
        let paths = RouteDeclaration.all.map(\.path)
        #expect(Set(paths).count == paths.count)
        #expect(Array(Metrics.endpointLabels.prefix(paths.count)) == paths)
        #expect(Metrics.endpointLabels.dropFirst(paths.count) == ["other", "rejected", "ext_authz"])
    }

    @Test("a route bound but not declared, or declared but not bound, is reported by the table")
    func mismatchesAreFound() {
        let declared = RouteDeclaration(
            "/declared", ["GET", "POST"], on: .api, access: .open, summary: "declared, POST has no handler")
        var handlers = RouteHandlers()
        handlers.on("GET", route: declared) { _ throws(ServiceProblem) in .now(.empty()) }
        let undeclared = RouteDeclaration("/handler-only", ["GET"], on: .api, access: .open, summary: "")
        handlers.on("GET", route: undeclared) { _ throws(ServiceProblem) in .now(.empty()) }
        let table = RouteTable([declared], handlers: handlers)
        #expect(
            table.mismatches == [
                "POST /declared is declared but has no handler", "GET /handler-only has a handler but no declaration",
            ])
        // Allow never names a method without a handler, and an undeclared route is not served.
        #expect(table.match("/declared")?.route.methods == ["GET"])
        #expect(table.match("/handler-only") == nil)
    }

    @Test("the rendered table lists every route with its methods and its listener")
    func tableContents() {
        let table = RouteDeclaration.endpointTable
        for route in RouteDeclaration.all {
            #expect(table.contains("| `\(route.path)` |"), "\(route.path)")
        }
        #expect(table.contains("| `GET`, `HEAD`, `POST` | `/v1/decide` | API |"))
        #expect(table.contains("| `POST` | `/v1/policy/diff` | admin |"))
        #expect(table.contains("| `GET`, `HEAD` | `/healthz` | both |"))
        #expect(table.contains("| `GET`, `DELETE` | `/v1/intake/{id}` | API |"))
    }

    @Test("the body limits above the server-wide one are the declared ones")
    func bodyLimits() {
        #expect(
            PolicyDaemon.bodyLimitsByPath == [
                "/v1/intake": 256 << 10, "/v1/intake/share-target": 256 << 10, "/v1/policy/diff": 8 << 20,
                "/v1/policy/analyze": 8 << 20,
            ])
    }

    @Test("serve --help's list names every route, one line each, within 100 columns")
    func helpList() {
        let lines = RouteDeclaration.helpList.split(separator: "\n")
        #expect(lines.count == RouteDeclaration.all.count)
        for (line, route) in zip(lines, RouteDeclaration.all) {
            #expect(line.hasPrefix("  \(route.path) ") && line.hasSuffix(route.summary))
            #expect(line.count <= 100, "\(line)")
        }
    }
}
