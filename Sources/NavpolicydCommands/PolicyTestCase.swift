import JSONSupport
import NavigationPolicy

/// One row of a `navpolicyd test` table: a request and the decision fields it must get.
struct PolicyTestCase {
    /// Expected decision fields; a field that is absent is not checked, an explicit null must be null.
    struct Expectation {
        var decision: Decision.Verdict
        var handler: String??
        var action: String??
        var location: String??
    }

    var label: String
    var request: NavigationRequest
    var expect: Expectation

    static let extraKeys = ["expect", "name"]
    static let expectKeys = ["decision", "handler", "action", "location"]

    /// Reads a whole cases file, reporting every malformed case with its JSON pointer.
    static func decodeAll(_ document: JSONValue) -> Result<[PolicyTestCase], ConfigError> {
        var diagnostics = ConfigDiagnostics()
        guard case .array(let entries) = document else {
            diagnostics.report(.root, "expected an array of test cases, got \(document.kindName)")
            return .failure(ConfigError(issues: diagnostics.issues))
        }
        var cases: [PolicyTestCase] = []
        for (index, entry) in entries.enumerated() {
            let pointer = JSONPointer.root.appending(index)
            guard let object = ConfigObject.expect(entry, at: pointer, diagnostics: &diagnostics) else { continue }
            if let decoded = decode(object, index: index, diagnostics: &diagnostics) { cases.append(decoded) }
        }
        guard diagnostics.isEmpty else { return .failure(ConfigError(issues: diagnostics.issues)) }
        return .success(cases)
    }

    private static func decode(_ object: ConfigObject, index: Int, diagnostics: inout ConfigDiagnostics)
        -> PolicyTestCase?
    {
        let request: NavigationRequest
        do {
            request = try NavigationRequest(json: object.object, extraKeys: extraKeys)
        } catch {
            diagnostics.report(object.pointer.appending(error.field), error.reason)
            return nil
        }
        let name = object.string("name", diagnostics: &diagnostics)
        guard let expectObject = object.object("expect", diagnostics: &diagnostics) else {
            if !object.has("expect") { diagnostics.report(object.pointer.appending("expect"), "required field is missing") }
            return nil
        }
        expectObject.checkKeys(allowed: expectKeys, diagnostics: &diagnostics)
        let verdictText = expectObject.string("decision", required: true, diagnostics: &diagnostics)
        guard let verdictText else { return nil }
        guard let verdict = Decision.Verdict(rawValue: verdictText) else {
            diagnostics.report(expectObject.pointer.appending("decision"), "\"\(verdictText)\": expected \"allow\" or \"cancel\"")
            return nil
        }
        func optionalString(_ key: String) -> String?? {
            guard let value = expectObject.object[key] else { return .none }
            switch value {
            case .null: return .some(nil)
            case .string(let text): return .some(text)
            default:
                diagnostics.report(expectObject.pointer.appending(key), "expected a string or null, got \(value.kindName)")
                return .none
            }
        }
        let expectation = Expectation(
            decision: verdict, handler: optionalString("handler"), action: optionalString("action"),
            location: optionalString("location"))
        return PolicyTestCase(label: name ?? "#\(index)", request: request, expect: expectation)
    }

    /// The mismatches between the expectation and an actual decision; empty means the case passes.
    func mismatches(_ decision: Decision) -> [String] {
        var problems: [String] = []
        func describe(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        if decision.verdict != expect.decision {
            problems.append("decision: expected \"\(expect.decision.rawValue)\", got \"\(decision.verdict.rawValue)\"")
        }
        for (key, expected, actual) in [
            ("handler", expect.handler, decision.handler), ("action", expect.action, decision.action),
            ("location", expect.location, decision.location),
        ] {
            if case .some(let wanted) = expected, wanted != actual {
                problems.append("\(key): expected \(describe(wanted)), got \(describe(actual))")
            }
        }
        return problems
    }
}
