public import HTTPServer
import JSONSupport
import NavigationPolicy
import Synchronization

/// The daemon's HTTP API: a route table built once from each area's registrations
/// (decisions, policy administration, share intake, nginx authorization), plus what every
/// answer shares: 404/405 from the table, problems rendered once, `Cache-Control` and the
/// request metrics written in one place.
///
/// Runs synchronously on the transport's thread that owns the connection (a libmicrohttpd worker); every request
/// takes one policy snapshot and decides entirely on it. Only the intake writes (which wait
/// for a disk commit) and reloads answer later, with the connection suspended.
/// docs/architecture.md follows one request through it.
public final class PolicyAPI: HTTPResponder {
    /// Every endpoint's path template, in the order the 404 detail lists them; the raw
    /// value is also the endpoint's metrics label. The route table registers exactly these.
    public enum Route: String, CaseIterable, Sendable {
        case decide = "/v1/decide"
        case policy = "/v1/policy"
        case reload = "/v1/policy/reload"
        case policyDiff = "/v1/policy/diff"
        /// Reachability, equivalence and queries over posted configs (issue 32).
        case policyAnalyze = "/v1/policy/analyze"
        case healthz = "/healthz"
        case readyz = "/readyz"
        /// Intake readiness: the policy and the intake store (`/readyz` needs only the policy).
        case readyzIntake = "/readyz/intake"
        case metrics = "/metrics"
        case intake = "/v1/intake"
        case intakeShareTarget = "/v1/intake/share-target"
        /// `/v1/intake/{id}`: the id is the last segment.
        case intakeItem = "/v1/intake/{id}"
        case authz = "/v1/authz"
        /// The policy bundle apps decide with (docs/bundles.md).
        case bundle = "/v1/policy/bundle"
        /// The status report as JSON (what the status page polls).
        case status = "/v1/status"
        /// The HTML status page, for browsers (`Accept: text/html`).
        case statusPage = "/"
        /// The status page under a name that says what it is.
        case statusPageAlias = "/status"
    }

    /// Which endpoints one listener serves.
    public enum Surface: Sendable {
        /// Everything: the only listener when `server.adminListen` is not set.
        case all
        /// The API listener beside an admin listener: decisions, authz, intake, and the
        /// probes (kept so load balancers and nginx checks aimed at the API port still work).
        case api
        /// The admin listener: probes, metrics, policy view, reload and diff.
        case admin
    }

    /// Largest `{"requests": […]}` batch.
    public static let maximumBatch = DecideEndpoints.maximumBatch
    static let problemTypePrefix = ProblemRenderer.typePrefix

    let routes: RouteTable
    let problems = ProblemRenderer()
    let metrics: Metrics
    let draining: DrainingFlag

    /// Assembles the table: each area registers its routes, behind the check its group needs.
    /// ``ServiceFactory/api(_:)`` is the one caller, for the daemon and the tests alike.
    init(
        store: PolicyStore, metrics: Metrics, recorder: DecisionRecorder, adminToken: AdminToken?,
        requireTokenForDecide: Bool, reload: @escaping @Sendable (String) -> PolicyStore.ReloadOutcome,
        openConnections: @escaping @Sendable () -> Int, intake: IntakeEndpoints, decisionLogPath: String?,
        authFailures: AuthFailureLog?, status: StatusSources, surface: Surface, draining: DrainingFlag,
        analysisSlot: AnalysisSlot
    ) {
        let admin = adminToken.map {
            BearerAuthorization(token: $0, realm: "navpolicyd", tokenName: "admin token", failures: authFailures)
        }
        var adminCheck: RouteCheck?
        if let admin { adminCheck = { request, route throws(ServiceProblem) in try admin.check(request, route: route) } }
        // The decision endpoints are one oracle: a decision endpoint left open would let anyone
        // map the policy whatever requireTokenForDecide says, so /v1/authz shares the guard,
        // and so do the views that show the chain outright (/v1/policy, /metrics, the bundle).
        // Only the probes stay open, for kubelets and load balancers.
        let decisionCheck = requireTokenForDecide ? adminCheck : nil
        let points = DecisionPoint(store: store, recorder: recorder, frontEnd: .authz)
        let policyAdmin = PolicyAdminEndpoints(
            store: store, metrics: metrics, reload: reload, openConnections: openConnections, draining: draining,
            analysisSlot: analysisSlot, decisionLogPath: decisionLogPath,
            intakeHealth: { () throws(ServiceProblem) in try intake.readiness() })

        let servesAPI = surface != .admin
        let servesAdmin = surface != .api
        var table = RouteTable()
        if servesAPI {
            table.group(checking: decisionCheck) { DecideEndpoints(store: store, recorder: recorder).register(in: &$0) }
        }
        if servesAdmin {
            table.group(checking: decisionCheck) { policyAdmin.registerPolicy(in: &$0) }
            table.group(checking: adminCheck) {
                policyAdmin.registerReload(in: &$0)
                policyAdmin.registerDiff(in: &$0)
                policyAdmin.registerAnalyze(in: &$0)
            }
            table.group { policyAdmin.registerHealthProbes(in: &$0) }
            table.group(checking: decisionCheck) { policyAdmin.registerMetrics(in: &$0) }
        } else {
            table.group { policyAdmin.registerHealthProbes(in: &$0) }
        }
        if servesAPI {
            table.group(checking: intake.check) { intake.register(in: &$0) }
            table.group(checking: decisionCheck) { AuthzEndpoints(decisions: points).register(in: &$0) }
            // The bundle is the whole chain, more than the decision oracle reveals: it needs the
            // token exactly when decisions do (open by default, as apps must fetch it to decide).
            table.group(checking: decisionCheck) { BundleEndpoints(store: store).register(in: &$0) }
        }
        if servesAdmin {
            // The status page shows the whole chain and the intake database path: admin data.
            let statusEndpoints = StatusEndpoints(
                store: store, metrics: metrics, sources: status, intake: intake,
                endpoints: { Route.allCases.map(\.rawValue) })
            table.group(checking: adminCheck) { statusEndpoints.register(in: &$0) }
        }

        self.routes = table
        self.metrics = metrics
        self.draining = draining
    }

    /// The metrics label of requests no route matched.
    private static let otherMetricsIndex = Metrics.endpointIndex("other")

    /// Marks the API as shutting down: `/readyz` turns 503 so load balancers stop sending.
    public func beginDraining() { draining.begin() }

    /// Built once by the server: the health answer.
    public var preparedResponses: [PreparedResponse] { [PolicyAdminEndpoints.healthy] }

    public func respond(to request: HTTPRequest) -> HTTPResponderResult {
        let started = MonotonicTime.nanoseconds()
        let matched = routes.match(request)
        let result: HTTPResponderResult
        do throws(ServiceProblem) {
            result = try answer(request, matched)
        } catch {
            result = .now(problems.response(error))
        }
        let endpoint = matched.map { routes.template(at: $0.index, or: "other") } ?? "other"
        let index = matched.map { routes.metricsIndex(at: $0.index, or: Self.otherMetricsIndex) } ?? Self.otherMetricsIndex
        // Answers ready now are finished here: `map` would allocate a closure context per request.
        if case .now(let response) = result {
            return .now(Self.finish(response, endpoint: endpoint, index: index, started: started, metrics: metrics))
        }
        let metrics = metrics
        return result.map { response in
            Self.finish(response, endpoint: endpoint, index: index, started: started, metrics: metrics)
        }
    }

    /// 404 and 405 from the table, else the route's (guarded) handler.
    private func answer(
        _ request: HTTPRequest, _ matched: (index: Int, parameters: [String: String])?
    ) throws(ServiceProblem) -> HTTPResponderResult {
        guard let (index, parameters) = matched, index < routes.routes.count else {
            throw ServiceProblem(.notFound(path: request.path, endpoints: routes.routes.map(\.template)))
        }
        guard let handler = routes.handler(at: index, for: request.method) else {
            let route = routes.routes[index]
            throw ServiceProblem(
                .methodNotAllowed(request.method, template: route.template, allowed: route.methods),
                headers: HTTPHeaders([(.allow, route.methods.joined(separator: ", "))]))
        }
        return try handler(RoutedRequest(http: request, parameters: parameters))
    }

    /// Adds `Cache-Control: no-store` and records the request's metrics.
    private static func finish(
        _ response: HTTPResponse, endpoint: String, index: Int?, started: UInt64, metrics: Metrics
    ) -> HTTPResponse {
        var response = response
        if !hasCacheControl(response.headers) { response.headers.add(name: .cacheControl, value: "no-store") }
        let elapsed = MonotonicTime.nanoseconds() &- started
        metrics.recordRequest(endpoint: endpoint, index: index, status: response.status.code, seconds: Double(elapsed) / 1e9)
        return response
    }

    /// Whether `headers` has a `Cache-Control` field. The shared JSON header set (every
    /// decision's) is recognised by its two field names, compared as Strings (their storage
    /// is the same literal, so `==` answers at once) before any case-insensitive search.
    private static func hasCacheControl(_ headers: HTTPHeaders) -> Bool {
        var fields = headers.makeIterator()
        if headers.count == 2, fields.next()?.name == HTTPFieldName.contentType.rawName,
            fields.next()?.name == HTTPFieldName.cacheControl.rawName
        {
            return true
        }
        return headers[.cacheControl] != nil
    }
}

/// Whether the daemon is shutting down (read by `/readyz`); one flag shared by the API and
/// admin listeners, so both report the drain.
final class DrainingFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func begin() { value.store(true, ordering: .relaxed) }

    var isDraining: Bool { value.load(ordering: .relaxed) }
}
