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
