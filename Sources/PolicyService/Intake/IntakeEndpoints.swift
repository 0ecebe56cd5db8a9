import Foundation
import HTTPServer
import JSONSupport
import NavigationPolicy
import ShareIntake

/// The share-intake endpoints: parse and validate on the worker thread (CPU only), then
/// hand the write to the store and answer after its COMMIT, with the connection suspended
/// meanwhile so the worker keeps serving `/v1/decide`.
struct IntakeEndpoints: Sendable {
    /// Whether this daemon stores shares.
    enum Availability: Sendable {
        /// Intake is on: the opened store.
        case open(any IntakeStore)
        /// `intake.enabled` is false: every endpoint answers 404 `intake-disabled`.
        case disabled
        /// Intake is enabled but the embedder opened no store: every endpoint answers 503.
        case notConfigured
    }

    let availability: Availability
    let settings: IntakeSettings
    /// When set, every intake endpoint requires `Authorization: Bearer <intake token>`.
    let bearer: BearerAuthorization?
    let policies: PolicyStore
    let recorder: DecisionRecorder
    let metrics: Metrics
    let log: EventLog
    let parser = PayloadParser()
    let problems = ProblemRenderer()
    /// The requests waiting on the store (``IntakeStorageGate``).
    let gate: IntakeStorageGate
    let failureLog: IntakeStorageFailureLog

    init(
        availability: Availability, settings: IntakeSettings, token: AdminToken?, policies: PolicyStore,
        recorder: DecisionRecorder, log: EventLog, authFailures: AuthFailureLog? = nil
    ) {
        self.availability = availability
        self.settings = settings
        self.bearer = token.map {
            BearerAuthorization(token: $0, realm: "navpolicyd-intake", tokenName: "intake token", failures: authFailures)
        }
        self.policies = policies
        self.recorder = recorder
        self.metrics = recorder.metrics
        self.log = log
        gate = IntakeStorageGate(limit: settings.maxWaitingRequests)
        failureLog = IntakeStorageFailureLog(log: log, metrics: recorder.metrics)
        if case .open = availability { recorder.metrics.observeIntakeWaiting { [gate] in gate.count } }
    }

    /// Items per page when `limit` is not given, and the most one page may hold.
    static let defaultPageSize = 20
    static let maximumPageSize = 100

    /// What a successful POST answers with.
    enum Reply {
        /// `POST /v1/intake`: 201 + Location for a new item, 200 for a duplicate.
        case created
        /// `POST /v1/intake/share-target`: 303 See Other to the item, for browsers.
        case seeOther
    }

    func register(in handlers: inout RouteHandlers) {
        handlers.on("GET", route: .intake) { request throws(ServiceProblem) in
            try list(request.http)
        }
        handlers.on("POST", route: .intake) { request throws(ServiceProblem) in
            try submit(request.http, reply: .created)
        }
        handlers.on("POST", route: .intakeShareTarget) { request throws(ServiceProblem) in
            try submit(request.http, reply: .seeOther)
        }
        handlers.on("GET", route: .intakeItem) { request throws(ServiceProblem) in
            try show(request.http, id: request.parameter("id"))
        }
        handlers.on("DELETE", route: .intakeItem) { request throws(ServiceProblem) in
            try delete(id: request.parameter("id"))
        }
    }

    /// The store's health for the status page: nil when there is no store to ask (intake
    /// disabled, or an embedder that opened none, whose endpoints already answer 503 on their own).
    var health: IntakeStoreHealth? {
        guard case .open(let store) = availability else { return nil }
        return store.health()
    }

    /// The store's health for `/readyz/intake`, or the problem every intake endpoint answers
    /// without a store (404 `intake-disabled`, 503 when none was opened): a probe aimed at
    /// intake readiness on a daemon without intake is a misconfiguration, not "ready".
    /// It waits on the database like a read, so it takes a place at the gate like one.
    func readiness() throws(ServiceProblem) -> IntakeStoreHealth {
        let store = try openStore()
        try enterGate()
        defer { gate.leave() }
        return store.health()
    }

    /// Takes a place among the requests waiting on storage, or throws the 503 that answers at once.
    private func enterGate() throws(ServiceProblem) {
        guard gate.enter() else {
            metrics.recordIntakeWaitingRefused()
            throw ServiceProblem(
                IntakeFailure(
                    .storageUnavailable,
                    "\(gate.limit) intake requests are already waiting for the database (intake.maxWaitingRequests); "
                        + "retry later",
                    extensions: ["retryAfter": .number(1)]))
        }
    }

    /// Runs a blocking store call off the worker thread (a worker serves many connections,
    /// `/v1/decide` among them), holding a place at the gate until it answers.
    private func offWorker(_ body: @escaping @Sendable () throws(ServiceProblem) -> HTTPResponse) throws(ServiceProblem)
        -> HTTPResponderResult
    {
        try enterGate()
        let gate = gate
        let problems = problems
        return .deferred { respond, _ in
            DispatchQueue.global().async {
                defer { gate.leave() }
                do throws(ServiceProblem) {
                    respond(try body())
                } catch {
                    respond(problems.response(error))
                }
            }
        }
    }

    /// The group check: the store must be open (404 when intake is off, 503 when it has no
    /// store; both before authorization, because no intake token is loaded when intake is
    /// off), then the intake token.
    var check: RouteCheck {
        { [self] request, route throws(ServiceProblem) in
            _ = try openStore()
            try bearer?.check(request, route: route)
        }
    }

    /// The store, or the problem every endpoint answers without one.
    private func openStore() throws(ServiceProblem) -> any IntakeStore {
        switch availability {
        case .open(let store):
            return store
        case .disabled:
            // 404 rather than 503: nothing is wrong and retrying will not help; the resource
            // does not exist on this daemon.
            throw ServiceProblem(
                ProblemDetails(
                    kind: "intake-disabled", title: "Share intake is disabled", status: 404,
                    detail: "intake.enabled is false in this daemon's config, so it stores no shares; "
                        + "send shares to a daemon that has intake enabled"))
        case .notConfigured:
            throw ServiceProblem(IntakeFailure(.storageUnavailable, "share intake is not configured on this daemon"))
        }
    }

    // MARK: - POST

    func submit(_ request: HTTPRequest, reply: Reply) throws(ServiceProblem) -> HTTPResponderResult {
        let store = try openStore()
        let prepared: IntakeSubmission
        do throws(IntakeFailure) {
            prepared = try prepare(request, reply: reply)
        } catch {
            metrics.recordIntake(result: error.kind.rawValue)
            throw ServiceProblem(error)
        }
        do throws(ServiceProblem) {
            try enterGate()
        } catch {
            metrics.recordIntake(result: IntakeFailure.Kind.storageUnavailable.rawValue)
            throw error
        }
        let metrics = metrics
        let failureLog = failureLog
        let problems = problems
        let gate = gate
        return .later {
            defer { gate.leave() }
            switch await store.submit(prepared) {
            case .success(.stored(let stored, let newItems)):
                metrics.recordIntake(result: newItems == 0 ? "duplicate" : "created")
                return Self.response(stored, replayed: false)
            case .success(.replayed(let stored)):
                metrics.recordIntake(result: "replayed")
                return Self.response(stored, replayed: true)
            case .failure(let failure):
                metrics.recordIntake(result: failure.kind.rawValue)
                failureLog.record(failure)
                return problems.response(ServiceProblem(failure))
            }
        }
    }

    /// Everything up to the write, in the order docs/intake.md gives the checks: key syntax, payload
    /// (type, size, encoding, format), URL count, web-URL rules, policy chain.
    private func prepare(_ request: HTTPRequest, reply: Reply) throws(IntakeFailure) -> IntakeSubmission {
        let key = try IntakeRequestContent.idempotencyKey(request.headers[.idempotencyKey])
        let accepted = reply == .seeOther ? PayloadParser.formMediaTypes : PayloadParser.acceptedMediaTypes
        let payload = try parser.parse(contentType: request.headers[.contentType], body: request.body, accepted: accepted)
        guard payload.urls.count <= settings.maxWebURLs else {
            throw IntakeFailure(
                .tooManyURLs,
                "the request holds \(payload.urls.count) URLs; intake.maxWebURLs is \(settings.maxWebURLs) "
                    + "(raise it in the config to accept more per request)",
                extensions: ["max": .number(Double(settings.maxWebURLs)), "setting": .string("intake.maxWebURLs")])
        }
        var urls: [WebURL] = []
        for candidate in payload.urls { urls.append(try WebURL(validating: candidate, limits: parser.limits)) }
        guard let snapshot = policies.snapshot else {
            throw IntakeFailure(.storageUnavailable, "no policy is loaded, so the URL cannot be decided")
        }
        var items: [NewIntakeItem] = []
        for url in urls {
            let decision = try decide(url, snapshot: snapshot, client: request.remoteAddress)
            items.append(
                NewIntakeItem(
                    url: url, title: payload.title, text: payload.text, tags: payload.tags, source: payload.format.rawValue,
                    decision: decision, userInfo: payload.userInfo))
        }
        let claim = key.map {
            IdempotencyClaim(key: $0, fingerprint: IntakeRequestContent.fingerprint(payload, urls: urls, endpoint: request.path))
        }
        return IntakeSubmission(
            items: items, receivedAt: Timestamp.iso8601(Date()), idempotency: claim,
            respond: { results in Self.storedResponse(results, reply: reply) })
    }

    /// Runs the URL through the same chain as `/v1/decide`.
    private func decide(_ url: WebURL, snapshot: PolicySnapshot, client: String) throws(IntakeFailure) -> JSONObject {
        let decision: Decision
        do {
            decision = try recorder.decide(NavigationRequest(url: url.href), on: snapshot, frontEnd: .intake)
        } catch {
            throw IntakeFailure(.invalidURL, error.reason)
        }
        // Recorded like every other decision (id, metrics, log line); the stored item keeps
        // its documented shape, so the id appears in the decision log only.
        _ = recorder.record(
            decision, for: NavigationRequest(url: url.href), snapshot: snapshot,
            origin: DecisionOrigin(.intake, clientAddress: client))
        var object = decision.jsonObject
        object.append("policyRevision", .string(snapshot.revision))
        if settings.onCancel == .reject, decision.verdict == .cancel {
            throw IntakeFailure(
                .policyDenied, "the navigation policy cancels \(url.href); intake.onCancel is reject",
                extensions: ["canonicalUrl": .string(url.href), "decision": .object(object)])
        }
        return object
    }

    /// The response stored with the items (and replayed for the same Idempotency-Key).
    private static func storedResponse(_ results: [IntakeResult], reply: Reply) -> StoredResponse {
        let firstNew = results.first { !$0.duplicate }
        switch reply {
        case .seeOther:
            let target = (firstNew ?? results.first)?.item.location
            return StoredResponse(status: 303, location: target, body: [])
        case .created:
            let body: JSONObject
            if results.count == 1, let only = results.first {
                body = Self.object(only)
            } else {
                body = [
                    "items": .array(results.map { .object(Self.object($0)) }),
                    "duplicate": .bool(results.allSatisfy(\.duplicate)),
                ]
            }
            return StoredResponse(
                status: firstNew == nil ? 200 : 201, location: (firstNew ?? results.first)?.item.location,
                body: JSONValue.object(body).serializedBytes)
        }
    }

    private static func object(_ result: IntakeResult) -> JSONObject {
        var object = result.item.jsonObject
        object.append("duplicate", .bool(result.duplicate))
        return object
    }

    private static func response(_ stored: StoredResponse, replayed: Bool) -> HTTPResponse {
        var response =
            stored.status == 303
            ? HTTPResponse(status: 303) : HTTPResponse.json(status: HTTPStatus(code: stored.status), body: stored.body)
        if let location = stored.location {
            response.headers.add(name: stored.status == 200 ? "Content-Location" : "Location", value: location)
        }
        if replayed { response.headers.add(name: "Idempotent-Replayed", value: "true") }
        return response
    }

    // MARK: - Reading and deleting

    /// A positive query number in its one spelling, ASCII digits without a leading zero (the
    /// OpenAPI pattern `^[1-9][0-9]{0,18}$`): `Int64("+2")` parses, so `limit=%2B2` would be a
    /// second spelling of `limit=2`. Nil for anything else, zero, or past Int64.
    static func decimal(_ text: String) -> Int64? {
        guard let first = text.utf8.first, (0x31...0x39).contains(first), text.utf8.count <= 19,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return Int64(text)
    }

    func list(_ request: HTTPRequest) throws(ServiceProblem) -> HTTPResponderResult {
        let store = try openStore()
        var limit = Self.defaultPageSize
        var after: Int64?
        var seen: Set<UTF8Key> = []
        for item in request.queryItems {
            // Names by their bytes: a `String`'s hash and `==` normalize a name first, quadratic in
            // a run of combining marks (outside attack 14, R1's class); the known names are short.
            guard item.name.utf8.count <= 8 else {
                throw ServiceProblem(
                    .invalidIntakeQuery(
                        "unknown query parameter \"\(EchoedText.bounded(item.name))\"; expected limit, after",
                        field: EchoedText.bounded(item.name)))
            }
            // One meaning per input: a repeated parameter would be read as its first or its last
            // value depending on who reads the query (a cache, a proxy, this loop).
            guard seen.insert(UTF8Key(item.name)).inserted else {
                throw ServiceProblem(
                    .invalidIntakeQuery("query parameter \"\(item.name)\" is given more than once", field: item.name))
            }
            switch item.name {
            case "limit":
                guard let value = Self.decimal(item.value).flatMap({ Int(exactly: $0) }),
                    (1...Self.maximumPageSize).contains(value)
                else {
                    throw ServiceProblem(
                        .invalidIntakeQuery(
                            "limit must be a whole number 1-\(Self.maximumPageSize), not \"\(item.value)\"", field: "limit"))
                }
                limit = value
            case "after":
                guard let value = Self.decimal(item.value), value > 0 else {
                    throw ServiceProblem(
                        .invalidIntakeQuery(
                            "after must be an item id from a previous page's next, not \"\(item.value)\"", field: "after"))
                }
                after = value
            default:
                throw ServiceProblem(
                    .invalidIntakeQuery("unknown query parameter \"\(item.name)\"; expected limit, after", field: item.name))
            }
        }
        let failureLog = failureLog
        let (pageSize, before) = (limit, after)
        return try offWorker { () throws(ServiceProblem) in
            do throws(IntakeFailure) {
                let items = try store.list(limit: pageSize, before: before)
                let next: JSONValue = items.count == pageSize ? items.last.map { .string(String($0.id)) } ?? .null : .null
                return .json(
                    .object([
                        "items": .array(items.map { .object($0.jsonObject) }), "order": .string("newest-first"),
                        "next": next,
                    ]))
            } catch {
                failureLog.record(error)
                throw ServiceProblem(error)
            }
        }
    }

    func show(_ request: HTTPRequest, id: String) throws(ServiceProblem) -> HTTPResponderResult {
        let store = try openStore()
        guard let number = Self.itemID(id) else { throw Self.notFound(id) }
        let prefersHTML = IntakeItemPage.prefersHTML(request.headers[.accept])
        let failureLog = failureLog
        return try offWorker { () throws(ServiceProblem) in
            let found: IntakeItem?
            do throws(IntakeFailure) {
                found = try store.item(id: number)
            } catch {
                failureLog.record(error)
                throw ServiceProblem(error)
            }
            guard let item = found else { throw Self.notFound(id) }
            return prefersHTML ? IntakeItemPage.response(for: item) : .json(.object(item.jsonObject))
        }
    }

    func delete(id: String) throws(ServiceProblem) -> HTTPResponderResult {
        let store = try openStore()
        guard let number = Self.itemID(id) else { throw Self.notFound(id) }
        try enterGate()
        let problems = problems
        let gate = gate
        let failureLog = failureLog
        return .later {
            defer { gate.leave() }
            switch await store.delete(id: number) {
            case .success(true): return .empty()
            case .success(false): return problems.response(Self.notFound(id))
            case .failure(let failure):
                failureLog.record(failure)
                return problems.response(ServiceProblem(failure))
            }
        }
    }

    /// Ids are positive decimal integers in their one spelling (``decimal(_:)``, as `after=`
    /// reads them): `/v1/intake/01` names no item, so one item has one URL.
    private static func itemID(_ text: String) -> Int64? { decimal(text) }

    private static func notFound(_ id: String) -> ServiceProblem {
        ServiceProblem(IntakeFailure(.notFound, "no intake item has the id \"\(id)\""))
    }
}
