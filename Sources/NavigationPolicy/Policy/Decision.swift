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
    /// What `"mode": "shadow"` handlers reached before the decision would have decided, in
    /// chain order; nil when none matched (so the JSON only grows when there is something to say).
    public var shadow: [ShadowResult]?
    /// With explain: each handler consulted, in order, and what it did.
    public var trace: [TraceStep]?
    /// With explain, when the path had two readings (an encoded separator, `%2F` or `%5C`):
    /// both match forms and which reading decided (the trace is that reading's); nil otherwise.
    public var pathReading: String?
    /// With explain, in a chain with `match.urlPatterns`: the regexp steps the decision took
    /// over all its readings, out of ``regexpStepBudget`` (docs/urlpattern.md); nil otherwise.
    public var regexpSteps: Int?
    /// With explain: true when a regexp run was stopped at the budget, so some `urlPatterns`
    /// entry was read the way that fails closed (matched for a cancelling handler, not for an
    /// allow-list); nil otherwise.
    public var regexpBudgetExhausted: Bool?
    /// How a front end answering HTTP shapes this cancel: the deciding handler's `response`
    /// (``DenialResponse``); nil for the defaults, for allows and for the default decision. Not
    /// part of the decision object's JSON: it is how a cancel is answered, not what was decided.
    public var response: DenialResponse?
    /// The regexp steps one decision may take (``regexpSteps`` counts against it).
    public static var regexpStepBudget: Int { URLPatternStepBudget.stepsPerDecision }

    /// The decision object: `decision`, `handler`, `action`, `location`, `url` in that order,
    /// then `shadow`, `trace` and `pathReading` when present.
    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "decision": .string(verdict.rawValue),
            "handler": handler.map(JSONValue.string) ?? .null,
            "action": action.map(JSONValue.string) ?? .null,
            "location": location.map(JSONValue.string) ?? .null,
            "url": .string(url),
        ]
        if let shadow {
            object.append("shadow", .array(shadow.map { .object($0.jsonObject) }))
        }
        if let trace {
            object.append("trace", .array(trace.map { .object($0.jsonObject) }))
        }
        if let pathReading { object.append("pathReading", .string(pathReading)) }
        if let regexpSteps { object.append("regexpSteps", .number(Double(regexpSteps))) }
        if let regexpBudgetExhausted { object.append("regexpBudgetExhausted", .bool(regexpBudgetExhausted)) }
        return object
    }
}

extension Decision {
    /// A decision; the explain-only members (`pathReading`, `regexpSteps`, …) start out nil.
    // In an extension, so that the struct keeps its memberwise initializer to delegate to: this
    // toolchain built a decision through the assignments of an initializer's body into a
    // temporary that it then copied (a retain and a release of every field, ~300 instructions
    // for each decision made).
    public init(
        verdict: Verdict, handler: String?, action: String?, location: String?, url: String,
        shadow: [ShadowResult]? = nil, trace: [TraceStep]? = nil, response: DenialResponse? = nil
    ) {
        self.init(
            verdict: verdict, handler: handler, action: action, location: location, url: url, shadow: shadow,
            trace: trace, pathReading: nil, regexpSteps: nil, regexpBudgetExhausted: nil, response: response)
    }

    /// Writes the decision object's members, without braces, in contract order.
    ///
    /// The HTTP API writes every decision straight into its response buffer this way and
    /// appends its own members (`decisionId`, `policyRevision`) before closing the object.
    ///
    /// - Parameter includingTrace: false leaves out `trace` (the decision log never carries it),
    ///   without copying the decision to drop it.
    public func writeMembers(to writer: inout JSONWriter, includingTrace: Bool = true) {
        writeMembers(to: &writer, openingObject: false, includingTrace: includingTrace, writingURL: Self.writeURL)
    }

    /// ``writeMembers(to:includingTrace:)`` with every URL the decision carries (`url`,
    /// `location`, each shadow `location`) written by `writeURL`, as a string's contents
    /// without the quotes: the decision log redacts and cuts them there, in place, instead of
    /// building a redacted copy of the decision.
    public func writeMembers(
        to writer: inout JSONWriter, includingTrace: Bool, writingURL writeURL: (String, inout JSONWriter) -> Void
    ) {
        writeMembers(to: &writer, openingObject: false, includingTrace: includingTrace, writingURL: writeURL)
    }

    /// Writes `{` and the decision object's members, leaving the object open for the caller's
    /// own members: the same bytes as `{` followed by ``writeMembers(to:)``, one append fewer.
    public func writeOpenObject(to writer: inout JSONWriter) {
        writeMembers(to: &writer, openingObject: true, includingTrace: true, writingURL: Self.writeURL)
    }

    /// A URL as it is: escaped, nothing redacted.
    private static func writeURL(_ url: String, to writer: inout JSONWriter) {
        writer.writeStringContents(url)
    }

    private func writeMembers(
        to writer: inout JSONWriter, openingObject: Bool, includingTrace: Bool,
        writingURL writeURL: (String, inout JSONWriter) -> Void
    ) {
        // Member names, fixed values and the quotes around the strings between them are merged
        // into as few literals as the members allow: each append costs its checks again.
        writer.writeRaw(Self.head(verdict, openingObject: openingObject, handler: handler != nil))
        if let handler { writer.writeStringContents(handler) }
        if action == nil, location == nil {
            // The usual allow has neither.
            writer.writeRaw(
                handler == nil ? #","action":null,"location":null,"url":""# : #"","action":null,"location":null,"url":""#)
        } else {
            writer.writeRaw(handler == nil ? #","action":"# : #"","action":"#)
            writer.writeOptionalString(action)
            writer.writeRaw(#","location":"#)
            Self.writeOptionalURL(location, to: &writer, writeURL)
            writer.writeRaw(#","url":""#)
        }
        writeURL(url, &writer)
        writer.writeRaw(#"""#)
        if let shadow {
            writer.writeRaw(#","shadow":["#)
            for (index, result) in shadow.enumerated() {
                if index > 0 { writer.writeRaw(",") }
                result.write(to: &writer, writingURL: writeURL)
            }
            writer.writeRaw("]")
        }
        if includingTrace, let trace {
            writer.writeRaw(#","trace":"#)
            writer.write(.array(trace.map { .object($0.jsonObject) }))
        }
        if let pathReading {
            writer.writeRaw(#","pathReading":"#)
            writer.writeOptionalString(pathReading)
        }
        if let regexpSteps {
            writer.writeRaw(#","regexpSteps":"#)
            writer.write(.number(Double(regexpSteps)))
        }
        if let regexpBudgetExhausted {
            writer.writeRaw(#","regexpBudgetExhausted":"#)
            writer.write(.bool(regexpBudgetExhausted))
        }
    }

    /// A quoted URL written by `writeURL`, or `null`.
    fileprivate static func writeOptionalURL(
        _ url: String?, to writer: inout JSONWriter, _ writeURL: (String, inout JSONWriter) -> Void
    ) {
        guard let url else {
            writer.writeRaw("null")
            return
        }
        writer.writeRaw(#"""#)
        writeURL(url, &writer)
        writer.writeRaw(#"""#)
    }

    /// The members up to the handler's value: `"decision":"…","handler":` and then the
    /// handler string's opening quote, or `null`; after `{` when the object is opened here.
    private static func head(_ verdict: Verdict, openingObject: Bool, handler: Bool) -> StaticString {
        switch (verdict, openingObject, handler) {
        case (.allow, false, true): #""decision":"allow","handler":""#
        case (.allow, false, false): #""decision":"allow","handler":null"#
        case (.allow, true, true): #"{"decision":"allow","handler":""#
        case (.allow, true, false): #"{"decision":"allow","handler":null"#
        case (.cancel, false, true): #""decision":"cancel","handler":""#
        case (.cancel, false, false): #""decision":"cancel","handler":null"#
        case (.cancel, true, true): #"{"decision":"cancel","handler":""#
        case (.cancel, true, false): #"{"decision":"cancel","handler":null"#
        }
    }
}

/// What one shadow handler would have decided; recorded, never applied.
public struct ShadowResult: Sendable, Equatable {
    public var handler: String
    public var verdict: Decision.Verdict
    public var action: String?
    public var location: String?

    public init(handler: String, verdict: Decision.Verdict, action: String?, location: String?) {
        self.handler = handler
        self.verdict = verdict
        self.action = action
        self.location = location
    }

    init(_ handler: String, _ decision: Decision) {
        self.init(handler: handler, verdict: decision.verdict, action: decision.action, location: decision.location)
    }

    /// Writes ``jsonObject`` (the same bytes, DecisionLogCostRedactionTests) straight into
    /// `writer`, the location through `writeURL` as ``Decision`` writes its URLs.
    fileprivate func write(to writer: inout JSONWriter, writingURL writeURL: (String, inout JSONWriter) -> Void) {
        writer.writeRaw(#"{"handler":"#)
        writer.writeString(handler)
        writer.writeRaw(verdict == .allow ? #","decision":"allow","action":"# : #","decision":"cancel","action":"#)
        writer.writeOptionalString(action)
        writer.writeRaw(#","location":"#)
        Decision.writeOptionalURL(location, to: &writer, writeURL)
        writer.writeRaw("}")
    }

    /// `{"handler":…,"decision":…,"action":…,"location":…}`, the decision's own field names.
    public var jsonObject: JSONObject {
        [
            "handler": .string(handler),
            "decision": .string(verdict.rawValue),
            "action": action.map(JSONValue.string) ?? .null,
            "location": location.map(JSONValue.string) ?? .null,
        ]
    }
}

/// One line of an explained decision: a handler that was consulted and why it passed or decided.
public struct TraceStep: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case passed
        case decided
        /// A `"mode": "shadow"` handler matched and would have decided; the chain went on.
        case shadow
    }

    /// A match entry that held, and the request value it held for.
    public struct Match: Sendable, Equatable {
        public var field: RequestMatcher.Field
        public var index: Int
        public var entry: String
        public var value: String

        public init(field: RequestMatcher.Field, index: Int, entry: String, value: String) {
            self.field = field
            self.index = index
            self.entry = entry
            self.value = value
        }

        public var jsonObject: JSONObject {
            [
                "field": .string(field.rawValue), "index": .number(Double(index)), "entry": .string(entry),
                "value": .string(value),
            ]
        }
    }

    /// The handler's name; `defaultDecision` for the step that applies the default.
    public var handler: String
    /// The handler's type; `default` for the default step.
    public var type: String
    public var outcome: Outcome
    /// Why, for a person: `"host \"a.example\" is not in hosts"`, `"matched: paths[1] …"`.
    public var reason: String
    /// For a passed step: the field that did not hold.
    public var field: RequestMatcher.Field?
    /// For a step that matched: the first entry of each field that held.
    public var matched: [Match]?

    public init(
        handler: String, type: String, outcome: Outcome, reason: String, field: RequestMatcher.Field? = nil,
        matched: [Match]? = nil
    ) {
        self.handler = handler
        self.type = type
        self.outcome = outcome
        self.reason = reason
        self.field = field
        self.matched = matched
    }

    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "handler": .string(handler),
            "type": .string(type),
            "result": .string(outcome.rawValue),
            "reason": .string(reason),
        ]
        if let field { object.append("field", .string(field.rawValue)) }
        if let matched { object.append("matched", .array(matched.map { .object($0.jsonObject) })) }
        return object
    }
}
