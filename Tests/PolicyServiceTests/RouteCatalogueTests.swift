import HTTPServer
import TestScratchSupport
import Testing

@testable import PolicyService

/// docs/api.md's endpoint table and `serve --help`'s route list come from the route catalogue
/// and the route tables the daemon builds, so neither can omit an endpoint.
@Suite("route catalogue")
struct RouteCatalogueTests {
    @Test("docs/api.md's endpoint table is the one rendered from the route tables")
    func apiTableIsGenerated() throws {
        let harness = try ServiceHarness()
        let table = PolicyAPI.endpointTable(
            all: harness.api.routes, api: harness.services.api(.api).routes, admin: harness.services.api(.admin).routes)
        let mismatch = try GeneratedDocSection.mismatch("endpoints", in: "docs/api.md", expected: table)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test("the rendered table lists every route with the methods it registers and its listener")
    func tableContents() throws {
        let harness = try ServiceHarness()
        let table = PolicyAPI.endpointTable(
            all: harness.api.routes, api: harness.services.api(.api).routes, admin: harness.services.api(.admin).routes)
        for route in PolicyAPI.Route.allCases {
            #expect(table.contains("| `\(route.rawValue)` |"), "\(route.rawValue)")
        }
        #expect(table.contains("| `GET`, `HEAD`, `POST` | `/v1/decide` | API |"))
        #expect(table.contains("| `POST` | `/v1/policy/diff` | admin |"))
        #expect(table.contains("| `GET`, `HEAD` | `/healthz` | both |"))
        #expect(table.contains("| `GET`, `DELETE` | `/v1/intake/{id}` | API |"))
    }

    @Test("serve --help's list names every route, one line each, within 100 columns")
    func helpList() {
        let lines = PolicyAPI.Route.helpList.split(separator: "\n")
        #expect(lines.count == PolicyAPI.Route.allCases.count)
        for (line, route) in zip(lines, PolicyAPI.Route.allCases) {
            #expect(line.hasPrefix("  \(route.rawValue) ") && line.hasSuffix(route.summary))
            #expect(line.count <= 100, "\(line)")
        }
    }
}
