public import HTTPServer
import JSONSupport
import NavigationPolicy
import Synchronization

/// The daemon's HTTP API: a route table built once from the declared routes
/// (``RouteDeclaration/all``) and the handlers each area binds to them (decisions, policy
/// administration, share intake, nginx authorization, bundle, status), plus what every
/// answer shares: 404/405 from the table, problems rendered once, `Cache-Control` and the
/// request metrics written in one place.
///
/// Runs synchronously on the transport's thread that owns the connection (a libmicrohttpd worker); every request
/// takes one policy snapshot and decides entirely on it. Only the intake writes (which wait
/// for a disk commit) and reloads answer later, with the connection suspended.
/// docs/architecture.md follows one request through it.
public final class PolicyAPI: HTTPResponder {
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

    /// Assembles the table: each area binds its handlers, each behind the check its route's
    /// declared access needs.
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

        var handlers = RouteHandlers()
        DecideEndpoints(store: store, recorder: recorder).register(in: &handlers)
        policyAdmin.register(in: &handlers)
        intake.register(in: &handlers)
        AuthzEndpoints(decisions: points).register(in: &handlers)
        BundleEndpoints(store: store).register(in: &handlers)
        StatusEndpoints(store: store, metrics: metrics, sources: status, intake: intake).register(in: &handlers)
        // Each route's declared access picks its check; the surface picks the routes.
        routes = RouteTable(serving: surface, handlers: handlers) { access -> RouteCheck? in
            switch access {
            case .open: nil
            case .decisions: decisionCheck
            case .admin: adminCheck
            case .intake: intake.check
            }
        }

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
