import HTTPServer
import JSONSupport

/// `GET /v1/status` (the report as JSON) and the status page at `/` and `/status`.
///
/// The page answers only requests whose `Accept` prefers `text/html` (browsers); other
/// clients get the 404 `not-found` that `/` has always answered, so scripts probing the
/// root see no change. Declared behind the admin token when one is set.
struct StatusEndpoints: Sendable {
    let store: PolicyStore
    let metrics: Metrics
    let sources: StatusSources
    let intake: IntakeEndpoints

    private var report: StatusReport { StatusReport(store: store, metrics: metrics, sources: sources, intake: intake) }

    func register(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .status) { _ throws(ServiceProblem) in
            .now(.json(.object(report.jsonObject())))
        }
        for route in [RouteDeclaration.statusPage, .statusPageAlias] {
            handlers.on("GET", "HEAD", route: route) { request throws(ServiceProblem) in
                guard IntakeItemPage.prefersHTML(request.http.headers[.accept]) else {
                    var problem = ProblemDetails.notFound(path: request.http.path, endpoints: RouteDeclaration.allPaths)
                    problem.detail =
                        "\(request.http.path) is the status page for browsers (Accept: text/html); "
                        + "its data is at \(RouteDeclaration.status.path). " + (problem.detail ?? "")
                    throw ServiceProblem(problem)
                }
                return .now(StatusPage.response(report.jsonObject()))
            }
        }
    }
}
