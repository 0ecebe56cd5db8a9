public import JSONSupport
public import NavigationPolicy
public import PolicyAuthoring

/// `POST /v1/policy/analyze`: the analysis of `navpolicyd analyze` over posted configs. Pure:
/// the route authenticates, calls ``report(body:compiler:)`` off the request path and renders
/// the result or the error.
///
/// A body is a client's input, so its cost is bounded: the body size by the route's limit, the
/// chains by the config limits, and the search by ``limits`` (answers past the bound are
/// "unknown", never wrong and never a stalled thread).
public enum PolicyAnalyzeRequest {
    /// Why a request was refused (never `nothingToReplay`); each maps to one problem type.
    public typealias Failure = AdminRequestFailure

    /// About a second of one core for the search; past it answers become "unknown".
    public static let limits = PolicyAnalysis.Limits(steps: 30_000_000, counterexamples: 20)

    /// Body: `{"config": {…}, "against": {…}?, "compare": "handler"?, "canReach": "allow"?,
    /// "match": {…}?}`. Answers the JSON `navpolicyd analyze --format json` prints for the same question,
    /// plus `steps`: the steps charged to the run, more than ``limits``' exactly when the bound
    /// stopped it (answers past it are unknown). `isCancelled` stops the run early (its client
    /// left, or the daemon is shutting down); open answers are then unknown.
    public static func report(
        body: [UInt8], compiler: PolicyCompiler, isCancelled: (@Sendable () -> Bool)? = nil
    ) -> Result<JSONObject, Failure> {
        var limits = Self.limits
        limits.isCancelled = isCancelled
        let object: JSONObject
        switch AdminRequestFailure.object(of: body, expected: "expected an object with \"config\" and optional \"against\"") {
        case .success(let parsed): object = parsed
        case .failure(let failure): return .failure(failure)
        }
        let known = ["config", "against", "compare", "canReach", "match"]
        for member in object.members where !known.containsSameUTF8(member.key) {
            return .failure(
                .invalidRequest(
                    "unknown field; expected " + known.map { "\"\($0)\"" }.joined(separator: ", "), field: member.key))
        }
        let policy: CompiledPolicy
        switch compile(object, "config", compiler) {
        case .success(let compiled?): policy = compiled
        case .success(nil): return .failure(.invalidRequest("required: the config to analyze, as an object", field: "config"))
        case .failure(let failure): return .failure(failure)
        }
        var comparingNames = false
        if let compare = object["compare"] {
            guard case .string(let text) = compare, text.hasSameUTF8(as: "handler") else {
                return .failure(.invalidRequest("the only value is \"handler\"", field: "compare"))
            }
            comparingNames = true
        }
        let other: CompiledPolicy?
        switch compile(object, "against", compiler) {
        case .success(let compiled): other = compiled
        case .failure(let failure): return .failure(failure)
        }
        if let other {
            guard object["canReach"] == nil, object["match"] == nil else {
                return .failure(.invalidRequest("\"against\" and \"canReach\" are separate questions", field: "canReach"))
            }
            let result = PolicyAnalysis.equivalence(policy, other, comparingNames: comparingNames, limits: limits)
            var answer = PolicyAnalysis.equivalenceObject(result)
            answer.append("steps", .number(Double(result.steps)))
            return .success(answer)
        }
        if comparingNames { return .failure(.invalidRequest("\"compare\" needs \"against\"", field: "compare")) }
        if let reach = object["canReach"] {
            return query(policy, reach, object["match"], limits)
        }
        if object["match"] != nil { return .failure(.invalidRequest("\"match\" scopes \"canReach\"", field: "match")) }
        let report = PolicyAnalysis.reachabilityReport(policy, limits: limits)
        var answer = PolicyAnalysis.reachabilityObject(report.handlers)
        answer.append("steps", .number(Double(report.steps)))
        return .success(answer)
    }

    private static func query(
        _ policy: CompiledPolicy, _ reach: JSONValue, _ match: JSONValue?, _ limits: PolicyAnalysis.Limits
    ) -> Result<JSONObject, Failure> {
        guard case .string(let text) = reach, !text.isEmpty else {
            return .failure(.invalidRequest("\"allow\", \"cancel\" or a handler name", field: "canReach"))
        }
        let target = PolicyAnalysis.target(text)
        if case .handler(let name) = target, !policy.links.contains(where: { $0.name.hasSameUTF8(as: name) }) {
            return .failure(
                .invalidRequest(
                    "no handler is named \"\(EchoedText.bounded(name))\" (or use \"allow\" or \"cancel\")", field: "canReach"))
        }
        var scope: RequestMatcher?
        if let match {
            guard let matchObject = match.objectValue else {
                return .failure(.invalidRequest("a match object, as a handler's \"match\"", field: "match"))
            }
            switch PolicyAnalysis.queryMatcher(matchObject, at: JSONPointer.root.appending("match")) {
            case .success(let matcher): scope = matcher
            case .failure(let error): return .failure(.invalidConfig(error.issues.map(\.description)))
            }
        }
        let result = PolicyAnalysis.query(policy, reaching: target, within: scope, limits: limits)
        var answer = PolicyAnalysis.queryObject(result)
        answer.append("steps", .number(Double(result.steps)))
        return .success(answer)
    }

    /// The compiled member `key`, nil when absent; errors carry pointers from the body's root.
    private static func compile(_ object: JSONObject, _ key: String, _ compiler: PolicyCompiler)
        -> Result<CompiledPolicy?, Failure>
    {
        guard let value = object[key] else { return .success(nil) }
        guard value.objectValue != nil else { return .failure(.invalidRequest("a config object", field: key)) }
        do {
            return .success(try compiler.compile(value))
        } catch {
            return .failure(.invalidConfig(error.issues.map { "/\(key)\($0.pointer.description): \($0.message)" }))
        }
    }
}
