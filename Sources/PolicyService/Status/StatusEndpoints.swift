import HTTPServer
import JSONSupport

/// `GET /v1/status` (the report as JSON) and the status page at `/` and `/status`.
///
/// The page answers only requests whose `Accept` prefers `text/html` (browsers); other
/// clients get the 404 `not-found` that `/` has always answered, so scripts probing the
/// root see no change. Registered behind the admin token when one is set.
struct StatusEndpoints: Sendable {
    let store: PolicyStore
    let metrics: Metrics
    let sources: StatusSources
    let intake: IntakeEndpoints
    /// Every route template, for the 404 detail.
    let endpoints: @Sendable () -> [String]

    private var report: StatusReport { StatusReport(store: store, metrics: metrics, sources: sources, intake: intake) }

    func register(in group: inout RouteGroup) {
        group.on("GET", "HEAD", path: PolicyAPI.Route.status.rawValue) { _ throws(ServiceProblem) in
            .now(.json(.object(report.jsonObject())))
        }
        for route in [PolicyAPI.Route.statusPage, .statusPageAlias] {
            group.on("GET", "HEAD", path: route.rawValue) { request throws(ServiceProblem) in
                guard IntakeItemPage.prefersHTML(request.http.headers[.accept]) else {
                    var problem = ProblemDetails.notFound(path: request.http.path, endpoints: endpoints())
                    problem.detail =
                        "\(request.http.path) is the status page for browsers (Accept: text/html); "
                        + "its data is at \(PolicyAPI.Route.status.rawValue). " + (problem.detail ?? "")
                    throw ServiceProblem(problem)
                }
                return .now(StatusPage.response(report.jsonObject()))
            }
        }
    }
}
