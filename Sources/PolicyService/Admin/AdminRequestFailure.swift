import JSONSupport

/// Why an admin request with a JSON body (`POST /v1/policy/diff`, `POST /v1/policy/analyze`)
/// was refused; each case maps to one problem type.
public enum AdminRequestFailure: Error, Sendable, Equatable {
    /// 400 `malformed-json`.
    case malformedJSON(String)
    /// 400 `invalid-request`, with the member at fault.
    case invalidRequest(String, field: String)
    /// 422 `invalid-config`: a posted config's errors, `pointer: message` each.
    case invalidConfig([String])
    /// 409 `nothing-to-replay` (diff only): no `requests` were posted and the decision log held
    /// no request to replay (none written yet, or no log at all); `linesRead` log lines were read.
    case nothingToReplay(linesRead: Int)
}

extension AdminRequestFailure {
    /// The JSON object an admin request body must be, or the failure to answer: 400
    /// `malformed-json` with where it broke, or `invalid-request` saying what was `expected`.
    static func object(of body: [UInt8], expected: String) -> Result<JSONObject, AdminRequestFailure> {
        let document: JSONValue
        do {
            document = try JSONParser().parse(body)
        } catch {
            return .failure(.malformedJSON("line \(error.line), column \(error.column): \(error.reason)"))
        }
        guard let object = document.objectValue else { return .failure(.invalidRequest(expected, field: "")) }
        return .success(object)
    }
}
