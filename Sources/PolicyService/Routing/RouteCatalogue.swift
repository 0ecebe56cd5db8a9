/// What each endpoint is for, in one place: `serve --help` lists the routes from here and the
/// endpoint table of docs/api.md is rendered from here and the route tables the daemon builds,
/// so neither can omit a route the daemon serves (`RouteCatalogueTests` compares them).
extension PolicyAPI.Route {
    /// One line saying what the endpoint does, for `serve --help` and docs/api.md.
    public var summary: String {
        switch self {
        case .decide: "decide one navigation (query), or one or a batch of 1 to 1000 (JSON)"
        case .policy: "the active chain, revision, load time and last reload error"
        case .reload: "re-read the config now and report the outcome (admin token)"
        case .policyDiff: "what a candidate config would change, replayed (admin token)"
        case .policyAnalyze: "reachability, equivalence and queries over a posted config (admin token)"
        case .healthz: "liveness"
        case .readyz: "decision readiness: a policy is active (never asks the intake store)"
        case .readyzIntake: "intake readiness: a policy is active and the intake store takes writes"
        case .metrics: "Prometheus metrics"
        case .intake: "store a shared URL (POST); stored items, newest first (GET)"
        case .intakeShareTarget: "the same for browser Web Share Target forms; 303 to the item"
        case .intakeItem: "one stored item (JSON or HTML), or delete it"
        case .authz: "nginx auth_request: 204 allows, 403 cancels the original request"
        case .bundle: "the policy bundle apps decide with (docs/bundles.md)"
        case .status: "the status report as JSON (what the status page polls)"
        case .statusPage: "the HTML status page (Accept: text/html; else 404)"
        case .statusPageAlias: "the same status page"
        }
    }

    /// `serve --help`'s route list: one `  /path  summary` line per route, in table order.
    public static var helpList: String {
        let width = (allCases.map(\.rawValue.count).max() ?? 0) + 2
        return allCases.map { "  " + $0.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n")
    }
}

extension PolicyAPI {
    /// The Markdown endpoint table of docs/api.md (between its `generated: endpoints` markers):
    /// every route of the single-listener table with the methods it registers, and the
    /// listener it moves to when `--admin-listen` splits them.
    static func endpointTable(all: RouteTable, api: RouteTable, admin: RouteTable) -> String {
        func templates(_ table: RouteTable) -> Set<String> { Set(table.routes.map(\.template)) }
        let onAPI = templates(api)
        let onAdmin = templates(admin)
        var lines = ["| Method | Path | With `--admin-listen` | What it does |", "|---|---|---|---|"]
        for route in all.routes {
            let methods = route.methods.map { "`\($0)`" }.joined(separator: ", ")
            let listener =
                switch (onAPI.contains(route.template), onAdmin.contains(route.template)) {
                case (true, true): "both"
                case (true, false): "API"
                case (false, true): "admin"
                case (false, false): "neither"
                }
            let summary = Route(rawValue: route.template)?.summary ?? ""
            lines.append("| \(methods) | `\(route.template)` | \(listener) | \(summary) |")
        }
        return lines.joined(separator: "\n")
    }
}
