import Foundation
import HTTPServer
import JSONSupport
import NavigationPolicy
import ShareIntake

/// Policy administration and probes: `/v1/policy`, `/v1/policy/reload`, `/healthz`,
/// `/readyz`, `/readyz/intake`, `/metrics`.
struct PolicyAdminEndpoints: Sendable {
    let store: PolicyStore
    let metrics: Metrics
    /// Reloads and reports the outcome; the daemon logs and counts every reload in one place.
    let reload: @Sendable (String) -> PolicyStore.ReloadOutcome
    /// Reads the open-connection gauge from the server at scrape time.
    let openConnections: @Sendable () -> Int
    let draining: DrainingFlag
    /// The one `POST /v1/policy/analyze` run this daemon allows at a time.
    let analysisSlot: AnalysisSlot
    /// The decision log `POST /v1/policy/diff` replays when no requests are posted.
    let decisionLogPath: String?
    /// The intake store's health for `/readyz/intake`: the problem to answer when this daemon
    /// has no store (intake disabled or not configured), else the store's own report.
    let intakeHealth: @Sendable () throws(ServiceProblem) -> IntakeStoreHealth
    let problems = ProblemRenderer()

    /// Binds the handlers of the policy views, administration and probes; each route's
    /// declaration (``RouteDeclaration/policy`` …) says which token guards it.
    func register(in handlers: inout RouteHandlers) {
        registerPolicy(in: &handlers)
        registerReload(in: &handlers)
        registerDiff(in: &handlers)
        registerAnalyze(in: &handlers)
        registerHealthProbes(in: &handlers)
        registerMetrics(in: &handlers)
    }

    /// `/v1/policy`: guarded like the decision endpoints (it reveals the whole chain, more
    /// than the decision oracle), so it needs the token exactly when they do.
    private func registerPolicy(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .policy) { _ throws(ServiceProblem) in
            .now(.json(.object(policyDescription())))
        }
    }

    /// `/v1/policy/reload`: behind the admin token.
    private func registerReload(in handlers: inout RouteHandlers) {
        handlers.on("POST", route: .reload) { _ throws(ServiceProblem) in reloadLater() }
    }

    /// `/v1/policy/diff`: behind the admin token, like reload.
    private func registerDiff(in handlers: inout RouteHandlers) {
        handlers.on("POST", route: .policyDiff) { request throws(ServiceProblem) in
            try DecideEndpoints.requireJSON(request.http)
            guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
            return diffLater(body: request.http.body, live: snapshot.policy)
        }
    }

    /// `/v1/policy/analyze`: behind the admin token, like diff. One run at a time
    /// (``AnalysisSlot``), and a run stops when its client leaves or the daemon shuts down.
    private func registerAnalyze(in handlers: inout RouteHandlers) {
        handlers.on("POST", route: .policyAnalyze) { request throws(ServiceProblem) in
            try DecideEndpoints.requireJSON(request.http)
            let body = request.http.body
            let problems = self.problems
            let draining = self.draining
            let slot = analysisSlot
            let counters = metrics.analysis
            // Compiling and searching take up to a second or so: a thread of its own, as for diff.
            return .deferred { respond, client in
                // Taken here, where the run starts: a request the server refuses to suspend
                // (shutting down) never holds the slot.
                guard slot.take() else {
                    counters.recordBusy()
                    respond(problems.response(AnalysisSlot.busyProblem))
                    return
                }
                Thread.detachNewThread {
                    // The budget reads this every 65,536 steps (a few milliseconds): a client
                    // that left or a shutdown stops the search within that many steps.
                    let stoppedByClient = AnalysisSlot.Mark()
                    let result = PolicyAnalyzeRequest.report(
                        body: body, compiler: ServerSettings.compiler,
                        isCancelled: {
                            if draining.isDraining { return true }
                            guard client.hasLeft else { return false }
                            stoppedByClient.set()
                            return true
                        })
                    if stoppedByClient.isSet { counters.recordAbandoned() }
                    slot.release()
                    respond(
                        Self.response(
                            result, problems: problems, invalidConfig: ProblemDetails.invalidAnalyzed,
                            requestTitle: ProblemDetails.invalidAnalysisRequestTitle))
                }
            }
        }
    }

    /// `/metrics`: guarded like `/v1/policy`, since its labels name the chain's handlers.
    private func registerMetrics(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .metrics) { _ throws(ServiceProblem) in
            .now(metricsResponse())
        }
    }

    /// The `/healthz` answer, the same bytes every time: the server sends it prebuilt. It
    /// already carries the `Cache-Control` every API response gets, so adding that header
    /// never changes (and so never unlinks) it.
    static let healthy = PreparedResponse(
        HTTPResponse(
            status: 200,
            headers: HTTPHeaders([(.contentType, "application/json"), (.cacheControl, "no-store")]),
            body: JSONValue.object(["status": .string("ok")]).serializedBytes))

    /// The probes (`/healthz`, `/readyz`, `/readyz/intake`): open, and served on both listeners.
    private func registerHealthProbes(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .healthz) { _ throws(ServiceProblem) in
            .now(Self.healthy.response)
        }
        handlers.on("GET", "HEAD", route: .readyz) { _ throws(ServiceProblem) in
            .now(try readiness())
        }
        handlers.on("GET", "HEAD", route: .readyzIntake) { _ throws(ServiceProblem) in
            // The store's check waits on the database (up to the busy timeout when PostgreSQL
            // stalls): off the worker thread, which also serves /healthz and /v1/decide.
            .deferred { [self] respond, _ in
                DispatchQueue.global().async {
                    do throws(ServiceProblem) {
                        respond(try intakeReadiness())
                    } catch {
                        respond(problems.response(error))
                    }
                }
            }
        }
    }

    /// Decision readiness: a policy is active and the daemon is not draining. Nothing else: a
    /// decision needs only the policy, so an intake store outage (PostgreSQL away, a full
    /// disk) must never take a replica's decision capacity out of its load balancer.
    private func readiness() throws(ServiceProblem) -> HTTPResponse {
        let snapshot = try readySnapshot()
        return .json(.object(["status": .string("ready"), "policyRevision": .string(snapshot.revision)]))
    }

    /// Intake readiness: decision readiness (an intake request is decided under the policy),
    /// and an intake store that can take writes now. Its own route, so a store outage shows
    /// here without touching `/readyz`.
    private func intakeReadiness() throws(ServiceProblem) -> HTTPResponse {
        let snapshot = try readySnapshot()
        let health = try intakeHealth()
        if let fault = health.fault {
            throw ServiceProblem(
                IntakeFailure(
                    .storageUnavailable, "\(fault.summary); intake requests answer 503 until it clears",
                    extensions: [
                        "retryAfter": .number(Double(fault.retryAfterSeconds)),
                        "intake": .object(["status": .string("unavailable"), "fault": .string(fault.rawValue)]),
                    ]))
        }
        return .json(
            .object([
                "status": .string("ready"), "policyRevision": .string(snapshot.revision),
                "intake": .object(["status": .string("ok")]),
            ]))
    }

    /// The active policy, or the problem every readiness probe answers without one.
    private func readySnapshot() throws(ServiceProblem) -> PolicySnapshot {
        guard !draining.isDraining else { throw ServiceProblem(.notReady) }
        guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
        return snapshot
    }

    private func metricsResponse() -> HTTPResponse {
        let snapshot = store.snapshot
        let text = metrics.render(
            openConnections: openConnections(), policyHandlers: snapshot?.policy.links.count,
            policyLoadedAt: snapshot?.loadedAt.timeIntervalSince1970)
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([(.contentType, "text/plain; version=0.0.4; charset=utf-8")]),
            body: Array(text.utf8))
    }

    /// Reloads off the request path: compiling a large policy takes about a second of CPU,
    /// which on a worker thread would stall every connection that worker owns, and in a task
    /// would hold one of the few threads async work shares. A thread of its own does neither,
    /// and answers the suspended connection itself.
    private func reloadLater() -> HTTPResponderResult {
        .deferred { [self] respond, _ in
            Thread.detachNewThread { respond(self.reloadResponse(self.reload("http"))) }
        }
    }

    /// Compiles the candidate and replays up to 100,000 requests off the request path, for the
    /// same reason a reload does: seconds of CPU on a worker would stall its connections.
    /// On a thread of its own, holding the analysis slot (``AnalysisSlot``: one analysis or
    /// diff at a time); 503 `analysis-busy` while another holds it.
    private func diffLater(body: [UInt8], live: CompiledPolicy) -> HTTPResponderResult {
        .deferred { [self] respond, _ in
            // Taken where the run starts, as analyze takes it.
            guard analysisSlot.take() else {
                metrics.analysis.recordDiffBusy()
                respond(problems.response(AnalysisSlot.busyProblem))
                return
            }
            Thread.detachNewThread {
                let response = self.diffResponse(body: body, live: live)
                analysisSlot.release()
                respond(response)
            }
        }
    }

    private func diffResponse(body: [UInt8], live: CompiledPolicy) -> HTTPResponse {
        let logPath = decisionLogPath
        let result = PolicyDiffRequest.report(
            body: body, live: live, compiler: ServerSettings.compiler,
            recentLog: { logPath.map { PolicyDiffRequest.recentLogLines(path: $0, maximumBytes: 16 << 20) } ?? [] })
        return Self.response(
            result, problems: problems, invalidConfig: ProblemDetails.invalidCandidate, logPath: logPath,
            requestTitle: ProblemDetails.invalidDiffRequestTitle)
    }

    /// The answer of an admin JSON endpoint: its report, or the problem its failure maps to.
    static func response(
        _ result: Result<JSONObject, AdminRequestFailure>, problems: ProblemRenderer,
        invalidConfig: ([String]) -> ProblemDetails, logPath: String? = nil, requestTitle: String
    ) -> HTTPResponse {
        switch result {
        case .success(let report): return .json(.object(report))
        case .failure(.malformedJSON(let detail)): return problems.response(.malformedJSON(detail))
        case .failure(.invalidRequest(let detail, let field)):
            return problems.response(.invalidAdminRequest(detail, field: field.isEmpty ? nil : field, title: requestTitle))
        case .failure(.invalidConfig(let errors)): return problems.response(invalidConfig(errors))
        case .failure(.nothingToReplay(let linesRead)):
            return problems.response(.nothingToReplay(logPath: logPath, linesRead: linesRead))
        }
    }

    private func reloadResponse(_ outcome: PolicyStore.ReloadOutcome) -> HTTPResponse {
        guard outcome.result != .failed else {
            var problem = ProblemDetails.invalidConfig(outcome.errors, fromSource: store.pullsFromSource)
            problem.extensions.append("activeRevision", outcome.revision.map(JSONValue.string) ?? .null)
            return problems.response(problem)
        }
        return .json(.object(outcome.jsonObject))
    }

    private func policyDescription() -> JSONObject {
        var object = JSONObject()
        let snapshot = store.snapshot
        object.append("revision", snapshot.map { .string($0.revision) } ?? .null)
        object.append("loadedAt", snapshot.map { .string(Timestamp.iso8601($0.loadedAt)) } ?? .null)
        object.append("configPath", .string(store.configPath))
        object.append("defaultDecision", snapshot.map { .string($0.policy.defaultVerdict.rawValue) } ?? .null)
        let handlers = (snapshot?.policy.links ?? []).enumerated().map { index, link -> JSONValue in
            .object([
                "position": .number(Double(index + 1)), "name": .string(link.name), "type": .string(link.type),
                "match": .string(link.matcher.summary),
            ])
        }
        object.append("handlers", .array(handlers))
        if let failure = store.lastReloadFailure {
            object.append(
                "lastReloadError",
                .object(["at": .string(Timestamp.iso8601(failure.at)), "errors": .array(failure.errors.map(JSONValue.string))]))
        } else {
            object.append("lastReloadError", .null)
        }
        return object
    }
}
