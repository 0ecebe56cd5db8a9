public import JSONSupport

/// The JSON shapes of `navpolicyd analyze` and `POST /v1/policy/analyze` (one renderer for both).
extension PolicyAnalysis {
    /// `{"url", "method", "navigationType", "targetFrame"}`.
    public static func requestObject(_ request: NavigationRequest) -> JSONObject {
        [
            "url": .string(request.url), "method": .string(request.method),
            "navigationType": .string(request.navigationType.rawValue),
            "targetFrame": .string(request.targetFrame.rawValue),
        ]
    }

    /// `{"handlers": [{"name", "reachable", "shadowedBy", "witness"}]}`; `reachable` is null
    /// and `unknown` says why when the analysis cannot decide.
    public static func reachabilityObject(_ handlers: [Reachability]) -> JSONObject {
        let values: [JSONValue] = handlers.map { handler in
            var object: JSONObject = [
                "name": .string(handler.name),
                "reachable": handler.reachable.map(JSONValue.bool) ?? .null,
                "shadowedBy": .array(handler.shadowedBy.map(JSONValue.string)),
                "witness": handler.witness.map { .object(requestObject($0)) } ?? .null,
            ]
            if handler.isShadow { object.append("mode", .string("shadow")) }
            if let reason = handler.unknownReason { object.append("unknown", .string(reason)) }
            return .object(object)
        }
        return ["handlers": .array(values)]
    }

    /// `{"equivalent", "counterexamples": [{"url", "method", "navigationType", "targetFrame", "config", "against"}],
    /// "differingRegions", "unknown"}`: `config` is the first chain's decision, `against` the second's.
    public static func equivalenceObject(_ result: Equivalence) -> JSONObject {
        let examples: [JSONValue] = result.counterexamples.map { example in
            var object = requestObject(example.request)
            object.append("config", .object(outcomeObject(example.first)))
            object.append("against", .object(outcomeObject(example.second)))
            return .object(object)
        }
        return [
            "equivalent": result.equivalent.map(JSONValue.bool) ?? .null,
            "counterexamples": .array(examples),
            "differingRegions": .number(Double(result.differingRegions)),
            "unknown": .array(result.unknownReasons.map(JSONValue.string)),
        ]
    }

    /// `{"reachable", "witness", "decision", "unknown"?}`.
    public static func queryObject(_ answer: QueryAnswer) -> JSONObject {
        var object: JSONObject = [
            "reachable": answer.reachable.map(JSONValue.bool) ?? .null,
            "witness": answer.witness.map { .object(requestObject($0)) } ?? .null,
            "decision": answer.decision.map { .object(outcomeObject($0)) } ?? .null,
        ]
        if let reason = answer.unknownReason { object.append("unknown", .string(reason)) }
        return object
    }

    /// A decision without shadow results or trace: what equivalence compares.
    static func outcomeObject(_ decision: Decision) -> JSONObject {
        [
            "decision": .string(decision.verdict.rawValue), "handler": decision.handler.map(JSONValue.string) ?? .null,
            "action": decision.action.map(JSONValue.string) ?? .null,
            "location": decision.location.map(JSONValue.string) ?? .null,
        ]
    }
}

extension PolicyAnalysis {
    /// A query's scope from a `match` object (the keys a handler's `match` takes), checked as
    /// config is: every problem with its JSON pointer under `pointer`.
    public static func queryMatcher(_ match: JSONObject, at pointer: JSONPointer) -> Result<RequestMatcher, ConfigError> {
        var diagnostics = ConfigDiagnostics()
        let matcher = RequestMatcher.decode(ConfigObject(match, at: pointer), diagnostics: &diagnostics)
        return diagnostics.issues.isEmpty ? .success(matcher) : .failure(ConfigError(issues: diagnostics.issues))
    }

    /// A query's target as `--can-reach` and the API spell it: `allow`, `cancel`, or a handler
    /// name (`handler:NAME` for a handler named `allow` or `cancel`).
    public static func target(_ text: String) -> Target {
        // By bytes: `init(rawValue:)` and `hasPrefix` compare by canonical equivalence, which
        // normalizes a text of combining marks first, quadratic in its run (a `canReach` of 256 KB
        // posted to /v1/policy/analyze: 7.7 s; outside attack 15, F7).
        if let verdict = Decision.Verdict.allCases.first(where: { $0.rawValue.hasSameUTF8(as: text) }) {
            return .verdict(verdict)
        }
        let prefix = "handler:".utf8
        if text.utf8.starts(with: prefix) { return .handler(String(Substring(text.utf8.dropFirst(prefix.count)))) }
        return .handler(text)
    }
}
