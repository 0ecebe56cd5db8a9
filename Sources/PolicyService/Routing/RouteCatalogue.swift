import ShareIntake

/// Every endpoint of the API, declared once. The route tables, the metrics' endpoint labels,
/// `serve --help`, the status page's 404 and docs/api.md's endpoint table are all made from
/// ``RouteDeclaration/all``, so none of them can omit a route or list one the daemon lacks.
extension RouteDeclaration {
    public static let decide = RouteDeclaration(
        "/v1/decide", ["GET", "HEAD", "POST"], on: .api, access: .decisions,
        summary: "decide one navigation (query), or one or a batch of 1 to 1000 (JSON)")
    public static let policy = RouteDeclaration(
        "/v1/policy", ["GET", "HEAD"], on: .admin, access: .decisions,
        summary: "the active chain, revision, load time and last reload error")
    public static let reload = RouteDeclaration(
        "/v1/policy/reload", ["POST"], on: .admin, access: .admin,
        summary: "re-read the config now and report the outcome (admin token)")
    /// A candidate config plus the requests to replay: bodies up to 8 MiB.
    public static let policyDiff = RouteDeclaration(
        "/v1/policy/diff", ["POST"], on: .admin, access: .admin, bodyLimit: 8 << 20,
        summary: "what a candidate config would change, replayed (admin token)")
    /// Reachability, equivalence and queries over posted configs (issue 32); the search
    /// itself is bounded, the one or two configs take up to 8 MiB.
    public static let policyAnalyze = RouteDeclaration(
        "/v1/policy/analyze", ["POST"], on: .admin, access: .admin, bodyLimit: 8 << 20,
        summary: "reachability, equivalence and queries over a posted config (admin token)")
    public static let healthz = RouteDeclaration(
        "/healthz", ["GET", "HEAD"], on: .both, access: .open, summary: "liveness")
    public static let readyz = RouteDeclaration(
        "/readyz", ["GET", "HEAD"], on: .both, access: .open,
        summary: "decision readiness: a policy is active (never asks the intake store)")
    /// Intake readiness: the policy and the intake store (`/readyz` needs only the policy).
    public static let readyzIntake = RouteDeclaration(
        "/readyz/intake", ["GET", "HEAD"], on: .both, access: .open,
        summary: "intake readiness: a policy is active and the intake store takes writes")
    public static let metrics = RouteDeclaration(
        "/metrics", ["GET", "HEAD"], on: .admin, access: .decisions, summary: "Prometheus metrics")
    /// Multipart forms may hold 256 KiB; the payload parser holds the other formats to 64 KiB.
    public static let intake = RouteDeclaration(
        "/v1/intake", ["GET", "POST"], on: .api, access: .intake, bodyLimit: IntakeLimits().multipartBytes,
        summary: "store a shared URL (POST); stored items, newest first (GET)")
    public static let intakeShareTarget = RouteDeclaration(
        "/v1/intake/share-target", ["POST"], on: .api, access: .intake, bodyLimit: IntakeLimits().multipartBytes,
        summary: "the same for browser Web Share Target forms; 303 to the item")
    /// `/v1/intake/{id}`: the id is the last segment.
    public static let intakeItem = RouteDeclaration(
        "/v1/intake/{id}", ["GET", "DELETE"], on: .api, access: .intake,
        summary: "one stored item (JSON or HTML), or delete it")
    public static let authz = RouteDeclaration(
        "/v1/authz", ["GET", "HEAD"], on: .api, access: .decisions,
        summary: "nginx auth_request: 204 allows, 403 cancels the original request")
    /// The bundle is the whole chain, more than the decision oracle reveals: it needs the
    /// token exactly when decisions do (open by default, as apps must fetch it to decide).
    public static let bundle = RouteDeclaration(
        "/v1/policy/bundle", ["GET", "HEAD"], on: .api, access: .decisions,
        summary: "the policy bundle apps decide with (docs/bundles.md)")
    /// The status report shows the whole chain and the intake database path: admin data.
    public static let status = RouteDeclaration(
        "/v1/status", ["GET", "HEAD"], on: .admin, access: .admin,
        summary: "the status report as JSON (what the status page polls)")
    /// The HTML status page, for browsers (`Accept: text/html`).
    public static let statusPage = RouteDeclaration(
        "/", ["GET", "HEAD"], on: .admin, access: .admin,
        summary: "the HTML status page (Accept: text/html; else 404)")
    /// The status page under a name that says what it is.
    public static let statusPageAlias = RouteDeclaration(
        "/status", ["GET", "HEAD"], on: .admin, access: .admin, summary: "the same status page")

    /// Every route, in the order the route table, the 404 detail, the metrics labels, `serve
    /// --help` and docs/api.md list them.
    public static let all: [RouteDeclaration] = [
        .decide, .policy, .reload, .policyDiff, .policyAnalyze, .healthz, .readyz, .readyzIntake, .metrics, .intake,
        .intakeShareTarget, .intakeItem, .authz, .bundle, .status, .statusPage, .statusPageAlias,
    ]

    /// Every route's path, in ``all``'s order.
    public static var allPaths: [String] { all.map(\.path) }

    /// `serve --help`'s route list: one `  /path  summary` line per route, in table order.
    public static var helpList: String {
        let width = (all.map(\.path.count).max() ?? 0) + 2
        return all.map { "  " + $0.path.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n")
    }

    /// The Markdown endpoint table of docs/api.md (between its `generated: endpoints` markers):
    /// every route with its methods, the listener it moves to when `--admin-listen` splits
    /// them, and what it does.
    static var endpointTable: String {
        var lines = ["| Method | Path | With `--admin-listen` | What it does |", "|---|---|---|---|"]
        for route in all {
            let methods = route.methods.map { "`\($0)`" }.joined(separator: ", ")
            let listener =
                switch route.listener {
                case .api: "API"
                case .admin: "admin"
                case .both: "both"
                }
            lines.append("| \(methods) | `\(route.path)` | \(listener) | \(route.summary) |")
        }
        return lines.joined(separator: "\n")
    }
}
