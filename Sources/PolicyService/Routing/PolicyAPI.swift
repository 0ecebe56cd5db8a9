import Foundation
public import HTTPServer
import JSONSupport
import NavigationPolicy
import ShareIntake
import Synchronization

/// The daemon's HTTP API: translates HTTP into navigation requests and decisions into JSON.
///
/// Runs synchronously on the libmicrohttpd worker that owns the connection; every request
/// takes one policy snapshot and decides entirely on it. Only the intake writes (which wait
/// for a disk commit) answer later, with the connection suspended.
public final class PolicyAPI: HTTPRoutingResponder {
    /// Every endpoint; the raw value is its path and its metrics label.
    public enum Route: String, CaseIterable, Sendable {
        case decide = "/v1/decide"
        case policy = "/v1/policy"
        case reload = "/v1/policy/reload"
        case healthz = "/healthz"
        case readyz = "/readyz"
        case metrics = "/metrics"
        case intake = "/v1/intake"
        case intakeShareTarget = "/v1/intake/share-target"
        /// `/v1/intake/{id}`: matched by prefix, the id is the last segment.
        case intakeItem = "/v1/intake/{id}"
        case authz = "/v1/authz"

        var allowedMethods: [String] {
            switch self {
            case .decide: ["GET", "HEAD", "POST"]
            case .reload, .intakeShareTarget: ["POST"]
            case .policy, .healthz, .readyz, .metrics: ["GET", "HEAD"]
            case .intake: ["GET", "POST"]
            case .intakeItem: ["GET", "DELETE"]
            case .authz: ["GET", "HEAD"]
            }
        }

        /// The route for a request path, with the `{id}` segment of `/v1/intake/{id}`.
        static func matching(_ path: String) -> (route: Route, id: String?)? {
            if let exact = Route(rawValue: path), exact != .intakeItem { return (exact, nil) }
            let prefix = "/v1/intake/"
            guard path.hasPrefix(prefix) else { return nil }
            let id = String(path.dropFirst(prefix.count))
            guard !id.isEmpty, !id.contains("/") else { return nil }
            return (.intakeItem, id)
        }
    }

    /// Largest `{"requests": […]}` batch.
    public static let maximumBatch = 1000
    static let problemTypePrefix = "urn:navpolicyd:problem:"

    let store: PolicyStore
    let metrics: Metrics
    let log: EventLog
    let decisionLog: DecisionLog?
    let adminToken: AdminToken?
    let requireTokenForDecide: Bool
    let identifiers = DecisionIdentifiers()
    /// Reloads and reports the outcome; the daemon logs and counts every reload in one place.
    let reload: @Sendable (String) -> PolicyStore.ReloadOutcome
    /// Reads the open-connection gauge from the server at scrape time.
    let openConnections: @Sendable () -> Int
    let draining = Atomic<Bool>(false)
    let intake: IntakeAPI?

    init(
        store: PolicyStore, metrics: Metrics, log: EventLog, decisionLog: DecisionLog?, adminToken: AdminToken?,
        requireTokenForDecide: Bool, reload: @escaping @Sendable (String) -> PolicyStore.ReloadOutcome,
        openConnections: @escaping @Sendable () -> Int, intake: IntakeAPI? = nil
    ) {
        self.intake = intake
        self.store = store
        self.metrics = metrics
        self.log = log
        self.decisionLog = decisionLog
        self.adminToken = adminToken
        self.requireTokenForDecide = requireTokenForDecide
        self.reload = reload
        self.openConnections = openConnections
    }

    /// Marks the API as shutting down: `/readyz` turns 503 so load balancers stop sending.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    public func route(_ request: HTTPRequest) -> HTTPResponderResult {
        let started = ContinuousClock.now
        let matched = Route.matching(request.path)
        let result: HTTPResponderResult
        switch matched {
        case nil:
            result = .now(problem(.notFound(path: request.path)))
        case let (route, id)?:
            if !route.allowedMethods.contains(request.method) {
                var response = problem(.methodNotAllowed(request.method, route: route))
                response.headers.add(name: "Allow", value: route.allowedMethods.joined(separator: ", "))
                result = .now(response)
            } else {
                result = handle(route, id: id, request)
            }
        }
        let endpoint = matched?.route.rawValue ?? "other"
        switch result {
        case .now(let response):
            return .now(finish(response, endpoint: endpoint, started: started))
        case .later(let work):
            return .later { [self] in finish(await work(), endpoint: endpoint, started: started) }
        case .deferred(let start):
            return .deferred { [self] respond in
                start { response in respond(self.finish(response, endpoint: endpoint, started: started)) }
            }
        }
    }

    /// Adds `Cache-Control: no-store` and records the request's metrics.
    private func finish(_ response: HTTPResponse, endpoint: String, started: ContinuousClock.Instant) -> HTTPResponse {
        var response = response
        if response.headers["Cache-Control"] == nil { response.headers.add(name: "Cache-Control", value: "no-store") }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(endpoint: endpoint, status: response.status, seconds: seconds)
        return response
    }

    private func handle(_ route: Route, id: String?, _ request: HTTPRequest) -> HTTPResponderResult {
        switch route {
        case .decide:
            if requireTokenForDecide, let failure = authorizationFailure(request) { return .now(failure) }
            return .now(request.method == "POST" ? decidePOST(request) : decideGET(request))
        case .reload:
            if let failure = authorizationFailure(request) { return .now(failure) }
            return reloadLater()
        case .policy:
            return .now(.json(.object(policyDescription())))
        case .healthz:
            return .now(.json(.object(["status": .string("ok")])))
        case .readyz:
            return .now(readiness())
        case .metrics:
            return .now(metricsResponse())
        case .intake, .intakeShareTarget, .intakeItem:
            return handleIntake(route, id: id, request)
        case .authz:
            // The same oracle as /v1/decide, so the same guard: a decision endpoint left open
            // would let anyone map the policy whatever requireTokenForDecide says.
            if requireTokenForDecide, let failure = authorizationFailure(request) { return .now(failure) }
            return .now(authorize(request))
        }
    }

    private func handleIntake(_ route: Route, id: String?, _ request: HTTPRequest) -> HTTPResponderResult {
        guard let intake else {
            return .now(
                IntakeFailure(.storageUnavailable, "share intake is not configured on this daemon")
                    .response(typePrefix: Self.problemTypePrefix))
        }
        switch (route, request.method) {
        case (.intake, "POST"): return intake.submit(request, reply: .created)
        case (.intakeShareTarget, _): return intake.submit(request, reply: .seeOther)
        case (.intakeItem, "DELETE"): return intake.delete(request, id: id ?? "")
        case (.intakeItem, _): return .now(intake.show(request, id: id ?? ""))
        default: return .now(intake.list(request))
        }
    }

    private func readiness() -> HTTPResponse {
        guard !draining.load(ordering: .relaxed) else { return problem(.notReady) }
        guard let snapshot = store.snapshot else { return problem(.noPolicy) }
        return .json(.object(["status": .string("ready"), "policyRevision": .string(snapshot.revision)]))
    }

    private func metricsResponse() -> HTTPResponse {
        let snapshot = store.snapshot
        let text = metrics.render(
            openConnections: openConnections(), policyHandlers: snapshot?.policy.links.count,
            policyLoadedAt: snapshot?.loadedAt.timeIntervalSince1970)
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
            body: Array(text.utf8))
    }

    // MARK: - Decisions

    private func decideGET(_ request: HTTPRequest) -> HTTPResponse {
        var fields: [String: String] = [:]
        for item in request.queryItems {
            guard Self.queryKeys.contains(item.name) else {
                return problem(
                    .invalidRequest(
                        "unknown query parameter \"\(item.name)\"; expected "
                            + Self.queryKeys.map { "\"\($0)\"" }.joined(separator: ", "), field: item.name))
            }
            guard fields[item.name] == nil else {
                return problem(.invalidRequest("query parameter \"\(item.name)\" is given more than once", field: item.name))
            }
            fields[item.name] = item.value
        }
        let explain: Bool
        switch fields["explain"] {
        case nil, "false": explain = false
        case "true": explain = true
        case let other?: return problem(.invalidRequest("explain must be true or false, not \"\(other)\"", field: "explain"))
        }
        guard let url = fields["url"] else {
            return problem(
                .invalidRequest(
                    "the url query parameter is required, e.g. /v1/decide?url=https%3A%2F%2Fapp.example.com%2F", field: "url"))
        }
        var navigation = NavigationRequest(url: url, method: fields["method"] ?? "GET", sourceURL: fields["sourceURL"])
        do throws(NavigationRequestError) {
            if let type = fields["navigationType"] {
                navigation.navigationType = try NavigationRequest.navigationType(from: type)
            }
            if let frame = fields["targetFrame"] { navigation.targetFrame = try NavigationRequest.targetFrame(from: frame) }
        } catch {
            return problem(.invalidRequest(error.description, field: error.field))
        }
        guard let snapshot = store.snapshot else { return problem(.noPolicy) }
        return decideOne(navigation, explain: explain, snapshot: snapshot)
    }

    static let queryKeys = NavigationRequest.jsonKeys + ["explain"]

    private func decidePOST(_ request: HTTPRequest) -> HTTPResponse {
        guard Self.isJSON(request.headers["Content-Type"]) else {
            var response = problem(.unsupportedMediaType(request.headers["Content-Type"]))
            response.headers.add(name: "Accept-Post", value: "application/json")
            return response
        }
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: 8).parse(request.body)
        } catch {
            return problem(.malformedJSON("the body is not valid JSON: \(error)"))
        }
        guard case .object(let object) = document else {
            return problem(.malformedJSON("the body must be a JSON object, not \(document.kindName)"))
        }
        let explain: Bool
        switch object["explain"] {
        case nil: explain = false
        case .bool(let flag)?: explain = flag
        case let other?: return problem(.invalidRequest("explain must be true or false, not \(other.kindName)", field: "explain"))
        }
        guard let snapshot = store.snapshot else { return problem(.noPolicy) }
        guard let batch = object["requests"] else {
            let navigation: NavigationRequest
            do {
                navigation = try NavigationRequest(json: object, extraKeys: ["explain"])
            } catch {
                return problem(.invalidRequest(error.description, field: error.field))
            }
            return decideOne(navigation, explain: explain, snapshot: snapshot)
        }
        return decideBatch(batch, object: object, explain: explain, snapshot: snapshot)
    }

    /// Decides every request of a batch, or none: one invalid entry rejects the whole batch,
    /// so a client never gets a partial answer it could misalign.
    private func decideBatch(_ batch: JSONValue, object: JSONObject, explain: Bool, snapshot: PolicySnapshot) -> HTTPResponse {
        if let extra = object.keys.first(where: { $0 != "requests" && $0 != "explain" }) {
            return problem(.invalidRequest("unknown field \"\(extra)\" next to \"requests\"", field: extra))
        }
        guard case .array(let entries) = batch else {
            return problem(.invalidRequest("requests must be an array of request objects", field: "requests"))
        }
        guard (1...Self.maximumBatch).contains(entries.count) else {
            return problem(
                .invalidRequest("requests must hold 1 to \(Self.maximumBatch) entries, not \(entries.count)", field: "requests"))
        }
        var canonical: [CanonicalRequest] = []
        canonical.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard case .object(let fields) = entry else {
                return problem(
                    .invalidRequest("/requests/\(index): expected an object, got \(entry.kindName)", field: "requests/\(index)"))
            }
            do {
                canonical.append(try CanonicalRequest(NavigationRequest(json: fields)))
            } catch {
                return problem(
                    .invalidRequest(
                        "/requests/\(index)/\(error.field): \(error.reason)", field: "requests/\(index)/\(error.field)"))
            }
        }
        var writer = JSONWriter(reservingCapacity: 64 + 320 * canonical.count)
        writer.writeRaw(#"{"decisions":["#)
        for (index, request) in canonical.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            record(snapshot.policy.decide(request, explain: explain), for: request.original, snapshot: snapshot, into: &writer)
        }
        writer.writeRaw(#"],"policyRevision":"#)
        writer.writeString(snapshot.revision)
        writer.writeRaw("}")
        return .json(body: writer.bytes)
    }

    private func decideOne(_ navigation: NavigationRequest, explain: Bool, snapshot: PolicySnapshot) -> HTTPResponse {
        let decision: Decision
        do {
            decision = try snapshot.policy.decide(navigation, explain: explain)
        } catch {
            return problem(.invalidRequest(error.description, field: error.field))
        }
        var writer = JSONWriter(reservingCapacity: 384)
        record(decision, for: navigation, snapshot: snapshot, into: &writer)
        return .json(body: writer.bytes)
    }

    /// Writes the decision object with `decisionId` and `policyRevision`, counts the decision
    /// and queues its log line. Written straight into the response buffer: this is the hot path.
    @discardableResult
    func record(
        _ decision: Decision, for navigation: NavigationRequest, snapshot: PolicySnapshot, into writer: inout JSONWriter
    ) -> String {
        let id = record(decision, for: navigation, snapshot: snapshot)
        writer.writeRaw("{")
        decision.writeMembers(to: &writer)
        writer.writeRaw(#","decisionId":"#)
        writer.writeString(id)
        writer.writeRaw(#","policyRevision":"#)
        writer.writeString(snapshot.revision)
        writer.writeRaw("}")
        return id
    }

    /// Counts the decision and queues its log line; returns the decision's identifier.
    func record(_ decision: Decision, for navigation: NavigationRequest, snapshot: PolicySnapshot) -> String {
        let id = identifiers.next()
        metrics.recordDecision(handler: decision.handler, decision: decision.verdict.rawValue, action: decision.action)
        if let decisionLog {
            var line: JSONObject = [
                "time": .string(Timestamp.iso8601(Date())),
                "decisionId": .string(id),
                "request": .object(navigation.jsonObject),
            ]
            var logged = decision
            logged.trace = nil
            line.append("decision", .object(logged.jsonObject))
            line.append("handler", decision.handler.map(JSONValue.string) ?? .null)
            line.append("revision", .string(snapshot.revision))
            decisionLog.append(JSONValue.object(line).serializedBytes)
        }
        return id
    }

    // MARK: - Policy

    /// Reloads off the request path: compiling a large policy takes about a second of CPU,
    /// which on a worker thread would stall every connection that worker owns, and in a task
    /// would hold one of the few threads async work shares. A thread of its own does neither,
    /// and answers the suspended connection itself.
    private func reloadLater() -> HTTPResponderResult {
        .deferred { [self] respond in
            Thread.detachNewThread { respond(self.reloadResponse(self.reload("http"))) }
        }
    }

    private func reloadResponse(_ outcome: PolicyStore.ReloadOutcome) -> HTTPResponse {
        guard outcome.result != .failed else {
            var problem = ProblemDetails.invalidConfig(outcome.errors)
            problem.extensions.append("activeRevision", outcome.revision.map(JSONValue.string) ?? .null)
            return self.problem(problem)
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

    // MARK: - Helpers

    private func authorizationFailure(_ request: HTTPRequest) -> HTTPResponse? {
        guard let adminToken else { return nil }
        guard !adminToken.authorizes(request.headers["Authorization"]) else { return nil }
        let presented = request.headers["Authorization"] != nil
        var response = problem(
            .unauthorized(presented ? "The bearer token is not valid." : "Send Authorization: Bearer <admin token>."))
        response.headers.add(
            name: "WWW-Authenticate",
            value: presented ? #"Bearer realm="navpolicyd", error="invalid_token""# : #"Bearer realm="navpolicyd""#)
        return response
    }

    func problem(_ problem: ProblemDetails) -> HTTPResponse {
        problem.response(typePrefix: Self.problemTypePrefix)
    }

    /// `application/json`, with or without parameters such as `charset=utf-8`.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // Bytes, not Foundation: trimmingCharacters(in:) + lowercased() bridged through
        // NSString and cost ~10% of a POST's CPU. Media types are ASCII and case-insensitive.
        let bytes = Array(contentType.utf8)
        var start = 0
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let expected = Array("application/json".utf8)
        guard end - start == expected.count else { return false }
        for offset in 0..<expected.count {
            let byte = bytes[start + offset]
            let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard lower == expected[offset] else { return false }
        }
        return true
    }
}

extension NavigationRequest {
    /// The request as logged: every field, defaults included.
    var jsonObject: JSONObject {
        [
            "url": .string(url), "method": .string(method), "navigationType": .string(navigationType.rawValue),
            "targetFrame": .string(targetFrame.rawValue), "sourceURL": sourceURL.map(JSONValue.string) ?? .null,
        ]
    }
}
