import HTTPServer
import JSONSupport
import NavigationPolicy

/// `/v1/decide`: one navigation from the query (GET, HEAD) or one or a batch from a JSON
/// body (POST), decided on one policy snapshot and recorded.
struct DecideEndpoints: Sendable {
    /// Largest `{"requests": […]}` batch.
    static let maximumBatch = 1000
    static let queryKeys = NavigationRequest.jsonKeys + ["explain"]

    let store: PolicyStore
    let recorder: DecisionRecorder

    /// Appended to an unknown-parameter detail when the query also has a `url`.
    static let encodingHint =
        ". If it is part of the url (an unencoded \"&\" in the URL's own query cuts it there), "
        + "percent-encode the url value (& as %26, ? as %3F, # as %23), "
        + "e.g. curl -G --data-urlencode 'url=https://a.example/?x=1&y=2' http://HOST:PORT/v1/decide"

    func register(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .decide) { request throws(ServiceProblem) in
            .now(try decideGET(request.http))
        }
        handlers.on("POST", route: .decide) { request throws(ServiceProblem) in
            .now(try decidePOST(request.http))
        }
    }

    private func decideGET(_ request: HTTPRequest) throws(ServiceProblem) -> HTTPResponse {
        let navigation: NavigationRequest
        let explain: Bool
        // The usual query (known names, each once) is read in place; anything else takes the
        // item-by-item reading, which also words every error. The query is read as a slice of
        // the target's bytes: `request.query` would copy it into a String (an allocation past
        // 15 bytes), and even a `rawQuery` Substring cost ~0.3k instructions to form and unwrap.
        switch request.rawQueryBytes?.withContiguousStorageIfAvailable({ Self.readQuery($0) }) {
        case .some(.some(.success(let read))): (navigation, explain) = read
        case .some(.some(.failure(let problem))): throw problem
        default: (navigation, explain) = try Self.readQueryItems(request.queryItems)
        }
        guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
        return try decideOne(navigation, explain: explain, snapshot: snapshot, client: request.remoteAddress)
    }

    /// The navigation and `explain` from the raw query bytes; nil when the query needs the
    /// full reading (see ``DecideQuery``).
    private static func readQuery(
        _ query: UnsafeBufferPointer<UInt8>
    ) -> Result<(NavigationRequest, explain: Bool), ServiceProblem>? {
        guard case .parsed(let found) = DecideQuery.scan(query) else { return nil }
        do throws(ServiceProblem) {
            let explain: Bool
            if let span = found.explain {
                if DecideQuery.value(span, in: query, is: "true") {
                    explain = true
                } else if DecideQuery.value(span, in: query, is: "false") {
                    explain = false
                } else {
                    explain = try explainFlag(DecideQuery.decode(span, in: query))
                }
            } else {
                explain = false
            }
            func decode(_ span: DecideQuery.Span) -> String { DecideQuery.decode(span, in: query) }
            let navigation = try navigationRequest(
                url: found.url.map(decode), method: found.method.map(decode), sourceURL: found.sourceURL.map(decode),
                navigationType: found.navigationType.map(decode), targetFrame: found.targetFrame.map(decode))
            return .success((navigation, explain))
        } catch {
            return .failure(error)
        }
    }

    /// The navigation and `explain` from the decoded query items, rejecting unknown and
    /// repeated parameters (in the order they appear).
    private static func readQueryItems(
        _ items: [(name: String, value: String)]
    ) throws(ServiceProblem) -> (NavigationRequest, explain: Bool) {
        var fields: [String: String] = [:]
        for item in items {
            guard queryKeys.contains(item.name) else {
                var detail =
                    "unknown query parameter \"\(item.name)\"; expected "
                    + queryKeys.map { "\"\($0)\"" }.joined(separator: ", ")
                // Most often the rest of a URL whose own query was not encoded: `url=https://a/?x=1&y=2`
                // reaches us as url=https://a/?x=1 and a parameter y.
                if items.contains(where: { $0.name.hasSameUTF8(as: "url") }) { detail += encodingHint }
                throw ServiceProblem(.invalidRequest(detail, field: item.name))
            }
            guard fields[item.name] == nil else {
                throw ServiceProblem(
                    .invalidRequest("query parameter \"\(item.name)\" is given more than once", field: item.name))
            }
            fields[item.name] = item.value
        }
        let explain = try explainFlag(fields["explain"])
        let navigation = try navigationRequest(
            url: fields["url"], method: fields["method"], sourceURL: fields["sourceURL"],
            navigationType: fields["navigationType"], targetFrame: fields["targetFrame"])
        return (navigation, explain)
    }

    /// `explain` as given in a query: absent or `false`, or `true`.
    private static func explainFlag(_ value: String?) throws(ServiceProblem) -> Bool {
        switch value {
        case nil, "false": return false
        case "true": return true
        case let other?:
            throw ServiceProblem(.invalidRequest("explain must be true or false, not \"\(other)\"", field: "explain"))
        }
    }

    /// The navigation from the query's decoded values; `url` is required.
    private static func navigationRequest(
        url: String?, method: String?, sourceURL: String?, navigationType: String?, targetFrame: String?
    ) throws(ServiceProblem) -> NavigationRequest {
        guard let url else {
            throw ServiceProblem(
                .invalidRequest(
                    "the url query parameter is required, e.g. /v1/decide?url=https%3A%2F%2Fapp.example.com%2F", field: "url"))
        }
        var navigation = NavigationRequest(url: url, method: method ?? "GET", sourceURL: sourceURL)
        do throws(NavigationRequestError) {
            if let navigationType { navigation.navigationType = try NavigationRequest.navigationType(from: navigationType) }
            if let targetFrame { navigation.targetFrame = try NavigationRequest.targetFrame(from: targetFrame) }
        } catch {
            throw ServiceProblem(.invalidRequest(error.description, field: error.field))
        }
        return navigation
    }

    private func decidePOST(_ request: HTTPRequest) throws(ServiceProblem) -> HTTPResponse {
        try Self.requireJSON(request)
        // The usual one-request body is read in place; anything else gets the strict parser.
        if let read = request.body.withUnsafeBufferPointer({ DecideBody.read($0) }) {
            guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
            return try decideOne(read.navigation, explain: read.explain, snapshot: snapshot, client: request.remoteAddress)
        }
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: 8).parse(request.body)
        } catch {
            throw ServiceProblem(.malformedJSON("the body is not valid JSON: \(error)"))
        }
        guard case .object(let object) = document else {
            throw ServiceProblem(.malformedJSON("the body must be a JSON object, not \(document.kindName)"))
        }
        let explain: Bool
        switch object["explain"] {
        case nil: explain = false
        case .bool(let flag)?: explain = flag
        case let other?:
            throw ServiceProblem(.invalidRequest("explain must be true or false, not \(other.kindName)", field: "explain"))
        }
        guard let snapshot = store.snapshot else { throw ServiceProblem(.noPolicy) }
        guard let batch = object["requests"] else {
            let navigation: NavigationRequest
            do {
                navigation = try NavigationRequest(json: object, extraKeys: ["explain"])
            } catch {
                throw ServiceProblem(.invalidRequest(error.description, field: error.field))
            }
            return try decideOne(navigation, explain: explain, snapshot: snapshot, client: request.remoteAddress)
        }
        return try decideBatch(
            batch, object: object, explain: explain, snapshot: snapshot, logAllowance: LogAllowance(bytes: request.body.count),
            client: request.remoteAddress)
    }

    /// Decides every request of a batch, or none: one invalid entry rejects the whole batch,
    /// so a client never gets a partial answer it could misalign.
    /// - Parameters:
    ///   - logAllowance: the decision-log bytes the batch may cause (its body's size).
    ///   - client: the peer's address, for each entry's log line.
    private func decideBatch(
        _ batch: JSONValue, object: JSONObject, explain: Bool, snapshot: PolicySnapshot, logAllowance: LogAllowance,
        client: String
    ) throws(ServiceProblem) -> HTTPResponse {
        if let extra = object.keys.first(where: { !$0.hasSameUTF8(as: "requests") && !$0.hasSameUTF8(as: "explain") }) {
            throw ServiceProblem(.invalidRequest("unknown field \"\(extra)\" next to \"requests\"", field: extra))
        }
        guard case .array(let entries) = batch else {
            throw ServiceProblem(.invalidRequest("requests must be an array of request objects", field: "requests"))
        }
        guard (1...Self.maximumBatch).contains(entries.count) else {
            throw ServiceProblem(
                .invalidRequest("requests must hold 1 to \(Self.maximumBatch) entries, not \(entries.count)", field: "requests"))
        }
        var canonical: [CanonicalRequest] = []
        canonical.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard case .object(let fields) = entry else {
                throw ServiceProblem(
                    .invalidRequest("/requests/\(index): expected an object, got \(entry.kindName)", field: "requests/\(index)"))
            }
            do {
                canonical.append(try CanonicalRequest(NavigationRequest(json: fields)))
            } catch {
                throw ServiceProblem(
                    .invalidRequest(
                        "/requests/\(index)/\(error.field): \(error.reason)", field: "requests/\(index)/\(error.field)"))
            }
        }
        var writer = JSONWriter(reservingCapacity: 64 + 320 * canonical.count)
        writer.writeRaw(#"{"decisions":["#)
        var allowance: LogAllowance? = logAllowance
        let origin = DecisionOrigin(.decide, clientAddress: client)
        for (index, request) in canonical.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            recorder.record(
                recorder.decide(request, on: snapshot, explain: explain, frontEnd: .decide), for: request.original,
                snapshot: snapshot, origin: origin, into: &writer, allowance: &allowance)
        }
        writer.writeRaw(#"],"policyRevision":"#)
        writer.writeString(snapshot.revision)
        writer.writeRaw("}")
        return .json(body: writer.bytes)
    }

    private func decideOne(
        _ navigation: NavigationRequest, explain: Bool, snapshot: PolicySnapshot, client: String
    ) throws(ServiceProblem) -> HTTPResponse {
        let decision: Decision
        do {
            decision = try recorder.decide(navigation, on: snapshot, explain: explain, frontEnd: .decide)
        } catch {
            throw ServiceProblem(.invalidRequest(error.description, field: error.field))
        }
        let body = ThreadResponseBuffer.json(reservingCapacity: 384) { writer in
            var once: LogAllowance?
            recorder.record(
                decision, for: navigation, snapshot: snapshot, origin: DecisionOrigin(.decide, clientAddress: client),
                into: &writer, allowance: &once)
        }
        return HTTPResponse(status: 200, headers: Self.jsonHeaders, body: body)
    }

    /// `Content-Type` and the `Cache-Control: no-store` every API answer gets, built once:
    /// a response that shares them allocates no header storage.
    static let jsonHeaders = HTTPHeaders([(.contentType, "application/json"), (.cacheControl, "no-store")])

    /// `application/json`, with or without parameters; a `charset`, when given, must be UTF-8.
    /// 415 with `Accept-Post: application/json` unless the body is declared JSON in UTF-8. The
    /// one check of every JSON-body endpoint (`/v1/decide`, `/v1/policy/diff`, `/v1/policy/analyze`).
    static func requireJSON(_ request: HTTPRequest) throws(ServiceProblem) {
        // On the field's bytes: reading `request.headers` would make every field a String
        // (≈ 2.8k instructions per POST) to look at one. Only the refusal needs the String.
        let reading = request.withFirstHeaderValue(named: .contentType) { bytes -> (isJSON: Bool, hasParameters: Bool) in
            isJSONMediaType(bytes) ? (true, bytes.contains(UInt8(ascii: ";"))) : (false, false)
        }
        guard let reading, reading.isJSON else {
            throw ServiceProblem(
                .unsupportedMediaType(request.headers[.contentType]),
                headers: HTTPHeaders([(.acceptPost, "application/json")]))
        }
        // Parameters are rare (`charset=utf-8` at most): only then is the field read as text.
        if reading.hasParameters { try requireUTF8Charset(request.headers[.contentType]) }
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // The spelling almost every client sends, compared whole before any trimming or folding.
        if contentType == "application/json" { return true }
        // Over the String's own UTF-8 storage: copying it into arrays cost two allocations per POST.
        if let answer = contentType.utf8.withContiguousStorageIfAvailable({ isJSONMediaType(UnsafeRawBufferPointer($0)) }) {
            return answer
        }
        return Array(contentType.utf8).withUnsafeBytes(isJSONMediaType)
    }

    /// Whether the media type (up to `;`, SP/HTAB trimmed) is `application/json`, ASCII case-insensitively.
    ///
    /// Bytes that are not UTF-8 never match (they are never SP, HTAB, `;` or ASCII), so the
    /// answer is the same on the bytes as received as on the String made from them.
    private static func isJSONMediaType(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Bytes, not Foundation: trimmingCharacters(in:) + lowercased() bridged through
        // NSString and cost ~10% of a POST's CPU. Media types are ASCII and case-insensitive.
        var start = 0
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return ASCIICaseInsensitive.equal(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), lowercase: "application/json")
    }
}
