public import JSONSupport

/// The answer for one navigation: the same object on the CLI, over HTTP, in intake
/// items and in proxy headers.
public struct Decision: Sendable, Equatable {
    /// Allow the navigation, or cancel it (and let the app run `action`).
    public enum Verdict: String, Sendable, CaseIterable {
        case allow
        case cancel
    }

    public var verdict: Verdict
    /// The handler that decided; nil when the default decision applied.
    public var handler: String?
    /// The native action for a cancel (`logout`, `show-about`, `open-external`, `block`, …); nil for allow.
    public var action: String?
    /// Where the app should send the user instead, when the handler says so.
    public var location: String?
    /// The request URL's WHATWG serialization.
    public var url: String
    /// With explain: each handler consulted, in order, and what it did.
    public var trace: [TraceStep]?

    public init(
        verdict: Verdict, handler: String?, action: String?, location: String?, url: String,
        trace: [TraceStep]? = nil
    ) {
        self.verdict = verdict
        self.handler = handler
        self.action = action
        self.location = location
        self.url = url
        self.trace = trace
    }

    /// The decision object: `decision`, `handler`, `action`, `location`, `url` in that order, then `trace` when present.
    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "decision": .string(verdict.rawValue),
            "handler": handler.map(JSONValue.string) ?? .null,
            "action": action.map(JSONValue.string) ?? .null,
            "location": location.map(JSONValue.string) ?? .null,
            "url": .string(url),
        ]
        if let trace {
            object.append("trace", .array(trace.map { .object($0.jsonObject) }))
        }
        return object
    }
}

extension Decision {
    /// Writes the decision object's members, without braces, in contract order.
    ///
    /// The HTTP API writes every decision straight into its response buffer this way and
    /// appends its own members (`decisionId`, `policyRevision`) before closing the object.
    public func writeMembers(to writer: inout JSONWriter) {
        writer.writeRaw(#""decision":"#)
        writer.writeString(verdict.rawValue)
        writer.writeRaw(#","handler":"#)
        writer.writeOptionalString(handler)
        writer.writeRaw(#","action":"#)
        writer.writeOptionalString(action)
        writer.writeRaw(#","location":"#)
        writer.writeOptionalString(location)
        writer.writeRaw(#","url":"#)
        writer.writeString(url)
        if let trace {
            writer.writeRaw(#","trace":"#)
            writer.write(.array(trace.map { .object($0.jsonObject) }))
        }
    }
}

/// One line of an explained decision: a handler that was consulted and why it passed or decided.
public struct TraceStep: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case passed
        case decided
    }

    public var handler: String
    public var type: String
    public var outcome: Outcome
    /// Why, for a person: `"host \"a.example\" is not in hosts"`, `"matched"`.
    public var reason: String

    public var jsonObject: JSONObject {
        [
            "handler": .string(handler),
            "type": .string(type),
            "result": .string(outcome.rawValue),
            "reason": .string(reason),
        ]
    }
}
