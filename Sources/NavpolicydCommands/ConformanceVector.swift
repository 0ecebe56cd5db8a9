import JSONSupport
import NavigationPolicy

/// One file of config/conformance/ (`"format": "navpolicy-conformance"`): a policy bundle and
/// the answers every port of the engine must give its requests (config/conformance/README.md).
///
/// Read strictly: an unknown or duplicate member, a missing one or a value of the wrong type is
/// a malformed file (exit 2), never a vector that silently checks less than it says.
struct ConformanceVector {
    /// The answer a case expects, or that the engine gave: a decision, or the request refused.
    enum Answer: Equatable {
        /// The engine cannot parse the request: the daemon answers 400 and a client cancels.
        case invalidRequest
        case decision(DecisionFields)
    }

    /// The members of a decision a port must reproduce exactly.
    struct DecisionFields: Equatable {
        var verdict: Decision.Verdict
        var handler: String?
        var action: String?
        var location: String?
        var url: String
        /// The shadow handlers that would have decided, in chain order; empty when none.
        var shadow: [ShadowResult]
    }

    struct Case {
        /// Where the case is in its file (`/cases/7`): the id a failure names it by.
        var pointer: JSONPointer
        var name: String
        var caseClass: String?
        var request: NavigationRequest
        /// The request object as written, echoed in JSON failures.
        var requestJSON: JSONObject
        var expect: Answer
    }

    static let format = "navpolicy-conformance"
    static let version = 1
    static let keys = ["format", "version", "name", "description", "bundle", "cases"]
    static let caseKeys = ["name", "class", "request", "expect"]
    static let decisionKeys = ["decision", "handler", "action", "location", "url", "shadow"]
    static let invalidRequestKeys = ["decision", "invalidRequest"]
    static let shadowKeys = ["handler", "decision", "action", "location"]

    var name: String
    /// The bundle's bytes (`navpolicyd bundle` output, unsigned), loaded as an app loads it.
    var bundle: [UInt8]
    var cases: [Case]

    /// Reads a whole vector file, reporting every malformed member with its JSON pointer.
    static func decode(_ document: JSONValue) -> Result<ConformanceVector, ConfigError> {
        var diagnostics = ConfigDiagnostics()
        guard let root = ConfigObject.expect(document, at: .root, diagnostics: &diagnostics) else {
            return .failure(ConfigError(issues: diagnostics.issues))
        }
        root.checkKeys(allowed: keys, diagnostics: &diagnostics)
        if let format = root.string("format", required: true, diagnostics: &diagnostics), format != Self.format {
            diagnostics.report(
                .root.appending("format"), "\"\(EchoedText.bounded(format))\": expected \"\(Self.format)\"")
        }
        if let version = root.integer("version", in: Int.min...Int.max, diagnostics: &diagnostics) {
            if version != Self.version {
                diagnostics.report(.root.appending("version"), "\(version): this navpolicyd reads version \(Self.version)")
            }
        } else if !root.has("version") {
            diagnostics.report(.root.appending("version"), "required field is missing")
        }
        let name = root.string("name", required: true, diagnostics: &diagnostics)
        _ = root.string("description", diagnostics: &diagnostics)
        let bundle = root.string("bundle", required: true, diagnostics: &diagnostics)
        var cases: [Case] = []
        switch root.object["cases"] {
        case nil: diagnostics.report(.root.appending("cases"), "required field is missing")
        case .array(let entries)?:
            if entries.isEmpty { diagnostics.report(.root.appending("cases"), "no cases; a vector that tests nothing") }
            for (index, entry) in entries.enumerated() {
                let pointer = JSONPointer.root.appending("cases").appending(index)
                guard let object = ConfigObject.expect(entry, at: pointer, diagnostics: &diagnostics) else { continue }
                if let decoded = decodeCase(object, diagnostics: &diagnostics) { cases.append(decoded) }
            }
        case let other?: diagnostics.report(.root.appending("cases"), "expected an array of cases, got \(other.kindName)")
        }
        guard diagnostics.isEmpty, let name, let bundle else { return .failure(ConfigError(issues: diagnostics.issues)) }
        return .success(ConformanceVector(name: name, bundle: Array(bundle.utf8), cases: cases))
    }

    private static func decodeCase(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> Case? {
        object.checkKeys(allowed: caseKeys, diagnostics: &diagnostics)
        let name = object.string("name", required: true, diagnostics: &diagnostics)
        let caseClass = object.string("class", diagnostics: &diagnostics)
        var request: NavigationRequest?
        let requestObject = object.object("request", diagnostics: &diagnostics)
        if let requestObject {
            do {
                request = try NavigationRequest(json: requestObject.object)
            } catch {
                diagnostics.report(requestObject.pointer.appending(error.field), error.reason)
            }
        } else if !object.has("request") {
            diagnostics.report(object.pointer.appending("request"), "required field is missing")
        }
        var expect: Answer?
        if let expectObject = object.object("expect", diagnostics: &diagnostics) {
            expect = decodeAnswer(expectObject, diagnostics: &diagnostics)
        } else if !object.has("expect") {
            diagnostics.report(object.pointer.appending("expect"), "required field is missing")
        }
        guard let name, let request, let requestObject, let expect else { return nil }
        return Case(
            pointer: object.pointer, name: name, caseClass: caseClass, request: request,
            requestJSON: requestObject.object, expect: expect)
    }

    /// `{"decision": "cancel", "invalidRequest": true}`, or a decision with every compared member.
    private static func decodeAnswer(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> Answer? {
        let verdict = verdict(object, diagnostics: &diagnostics)
        if object.has("invalidRequest") {
            object.checkKeys(allowed: invalidRequestKeys, diagnostics: &diagnostics)
            guard let flag = object.bool("invalidRequest", diagnostics: &diagnostics) else { return nil }
            guard flag else {
                diagnostics.report(
                    object.pointer.appending("invalidRequest"),
                    "only true is meaningful; a valid request's expect gives its decision's members")
                return nil
            }
            // A client cancels what it cannot parse (docs/security.md): nothing else is an answer.
            if let verdict, verdict != .cancel {
                diagnostics.report(object.pointer.appending("decision"), "an invalid request is cancelled: expected \"cancel\"")
                return nil
            }
            return verdict.map { _ in ConformanceVector.Answer.invalidRequest }
        }
        object.checkKeys(allowed: decisionKeys, diagnostics: &diagnostics)
        let handler = nullableString(object, "handler", diagnostics: &diagnostics)
        let action = nullableString(object, "action", diagnostics: &diagnostics)
        let location = nullableString(object, "location", diagnostics: &diagnostics)
        let url = object.string("url", required: true, diagnostics: &diagnostics)
        let shadow = shadowList(object, diagnostics: &diagnostics)
        guard let verdict, let handler, let action, let location, let url, let shadow else { return nil }
        return .decision(
            DecisionFields(verdict: verdict, handler: handler, action: action, location: location, url: url, shadow: shadow))
    }

    private static func verdict(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> Decision.Verdict? {
        guard let text = object.string("decision", required: true, diagnostics: &diagnostics) else { return nil }
        guard let verdict = Decision.Verdict(rawValue: text) else {
            diagnostics.report(
                object.pointer.appending("decision"), "\"\(EchoedText.bounded(text))\": expected \"allow\" or \"cancel\"")
            return nil
        }
        return verdict
    }

    /// A required member that is a string or null: `.some(nil)` for null, nil after reporting.
    private static func nullableString(_ object: ConfigObject, _ key: String, diagnostics: inout ConfigDiagnostics)
        -> String??
    {
        switch object.object[key] {
        case nil:
            diagnostics.report(object.pointer.appending(key), "required field is missing (null when the decision has none)")
            return nil
        case .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        case let other?:
            diagnostics.report(object.pointer.appending(key), "expected a string or null, got \(other.kindName)")
            return nil
        }
    }

    /// The optional `shadow` list; absent is the empty list (no shadow handler would have decided).
    private static func shadowList(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [ShadowResult]? {
        guard let value = object.object["shadow"] else { return [] }
        guard case .array(let entries) = value else {
            diagnostics.report(object.pointer.appending("shadow"), "expected an array, got \(value.kindName)")
            return nil
        }
        var results: [ShadowResult] = []
        var valid = true
        for (index, entry) in entries.enumerated() {
            let pointer = object.pointer.appending("shadow").appending(index)
            guard let entryObject = ConfigObject.expect(entry, at: pointer, diagnostics: &diagnostics) else {
                valid = false
                continue
            }
            entryObject.checkKeys(allowed: shadowKeys, diagnostics: &diagnostics)
            let handler = entryObject.string("handler", required: true, diagnostics: &diagnostics)
            let verdict = verdict(entryObject, diagnostics: &diagnostics)
            let action = nullableString(entryObject, "action", diagnostics: &diagnostics)
            let location = nullableString(entryObject, "location", diagnostics: &diagnostics)
            guard let handler, let verdict, let action, let location else {
                valid = false
                continue
            }
            results.append(ShadowResult(handler: handler, verdict: verdict, action: action, location: location))
        }
        return valid ? results : nil
    }
}

extension ConformanceVector.DecisionFields {
    /// The members of an engine's decision a vector compares.
    init(_ decision: Decision) {
        self.init(
            verdict: decision.verdict, handler: decision.handler, action: decision.action, location: decision.location,
            url: decision.url, shadow: decision.shadow ?? [])
    }
}

extension ConformanceVector.Answer {
    /// The answer as the vector format writes it (`expect`), for failures.
    var jsonObject: JSONObject {
        switch self {
        case .invalidRequest: return ["decision": .string("cancel"), "invalidRequest": .bool(true)]
        case .decision(let fields):
            var object: JSONObject = [
                "decision": .string(fields.verdict.rawValue), "handler": fields.handler.map(JSONValue.string) ?? .null,
                "action": fields.action.map(JSONValue.string) ?? .null,
                "location": fields.location.map(JSONValue.string) ?? .null, "url": .string(fields.url),
            ]
            if !fields.shadow.isEmpty { object.append("shadow", .array(fields.shadow.map { .object($0.jsonObject) })) }
            return object
        }
    }

    /// Whether two members are the same bytes. `==` on String is canonical equivalence, under
    /// which a decision URL of `a\u{37E}b` would pass for the expected `a;b` (outside attack
    /// round 11, F1).
    static func sameText(_ first: String?, _ second: String?) -> Bool {
        switch (first, second) {
        case (nil, nil): return true
        case (let first?, let second?): return first.hasSameUTF8(as: second)
        default: return false
        }
    }

    /// What differs from `actual`, one line per member; empty when they agree.
    func mismatches(_ actual: ConformanceVector.Answer) -> [String] {
        switch (self, actual) {
        case (.invalidRequest, .invalidRequest): return []
        case (.invalidRequest, .decision):
            return ["expected the request to be refused as invalid, but the engine decided it"]
        case (.decision, .invalidRequest):
            return ["expected a decision, but the engine refused the request as invalid"]
        case (.decision(let expected), .decision(let got)):
            var problems: [String] = []
            func describe(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
            if expected.verdict != got.verdict {
                problems.append("decision: expected \"\(expected.verdict.rawValue)\", got \"\(got.verdict.rawValue)\"")
            }
            for (key, wanted, value) in [
                ("handler", expected.handler, got.handler), ("action", expected.action, got.action),
                ("location", expected.location, got.location), ("url", Optional(expected.url), Optional(got.url)),
            ] where !Self.sameText(wanted, value) {
                problems.append("\(key): expected \(describe(wanted)), got \(describe(value))")
            }
            if expected.shadow != got.shadow {
                func list(_ shadow: [ShadowResult]) -> String {
                    JSONValue.array(shadow.map { .object($0.jsonObject) }).serialized
                }
                problems.append("shadow: expected \(list(expected.shadow)), got \(list(got.shadow))")
            }
            return problems
        }
    }
}
