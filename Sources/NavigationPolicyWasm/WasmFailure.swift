import JSONSupport
import NavigationPolicy

/// Why an exported call failed, as JavaScript's `NavigationPolicyError` receives it:
/// `{"code","message"}` and, by code, `field` or `errors`. The codes are the HTTP API's problem
/// types (`invalid-config`, `invalid-request`, `malformed-json`) and the app client's bundle
/// rejection kinds (`expired`, `bad-signature`, `unknown-key`, …), so one failure has one name
/// in every front end; docs/integrations/web.md lists them.
struct WasmFailure: Error {
    var code: String
    var message: String
    /// `invalid-request`: the request member at fault.
    var field: String?
    /// `invalid-config`: every issue, each with its JSON pointer.
    var errors: [String]?

    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    init(_ rejection: BundleRejection) {
        self.init(code: rejection.kind.rawValue, message: rejection.reason)
    }

    init(_ error: ConfigError) {
        let issues = error.issues.map { $0.description }
        self.init(code: "invalid-config", message: issues.first ?? "the config is invalid")
        errors = issues
    }

    init(_ error: NavigationRequestError) {
        self.init(code: "invalid-request", message: error.description)
        field = error.field
    }

    /// A call JavaScript made wrongly (a released policy, a null pointer): a bug in the glue, never input.
    static func misuse(_ message: String) -> WasmFailure { WasmFailure(code: "invalid-argument", message: message) }

    var jsonValue: JSONValue {
        var object: JSONObject = ["code": .string(code), "message": .string(message)]
        if let field { object.append("field", .string(field)) }
        if let errors { object.append("errors", .array(errors.map { .string($0) })) }
        return .object(object)
    }
}
