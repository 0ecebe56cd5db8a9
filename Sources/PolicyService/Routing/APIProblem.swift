import HTTPServer
import JSONSupport

/// The problem kinds the policy API answers with (RFC 9457); `kind` is the stable part of `type`.
extension ProblemDetails {
    static func invalidRequest(_ detail: String, field: String? = nil) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-request", title: "Invalid navigation request", status: 400, detail: detail,
            extensions: field.map { ["field": .string($0)] } ?? [:])
    }

    /// `invalid-request` for the intake listing's query (`limit`, `after`): the same kind
    /// clients branch on, titled for what was asked.
    static func invalidIntakeQuery(_ detail: String, field: String) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-request", title: "Invalid intake request", status: 400, detail: detail,
            extensions: ["field": .string(field)])
    }

    static func malformedJSON(_ detail: String) -> ProblemDetails {
        ProblemDetails(kind: "malformed-json", title: "Malformed JSON body", status: 400, detail: detail)
    }

    static func unauthorized(_ detail: String) -> ProblemDetails {
        ProblemDetails(kind: "unauthorized", title: "Authentication required", status: 401, detail: detail)
    }

    static func notFound(path: String, endpoints: [String]) -> ProblemDetails {
        ProblemDetails(
            kind: "not-found", title: "Not found", status: 404,
            detail: "No endpoint at \(path). Endpoints: " + endpoints.joined(separator: ", "))
    }

    static func methodNotAllowed(_ method: String, template: String, allowed: [String]) -> ProblemDetails {
        ProblemDetails(
            kind: "method-not-allowed", title: "Method not allowed", status: 405,
            detail: "\(template) accepts \(allowed.joined(separator: ", ")), not \(method).")
    }

    static func unsupportedMediaType(_ contentType: String?) -> ProblemDetails {
        ProblemDetails(
            kind: "unsupported-media-type", title: "Unsupported media type", status: 415,
            detail: "Send the body as application/json" + (contentType.map { ", not \($0)." } ?? "; Content-Type is missing."))
    }

    /// - Parameter fromSource: the reload polled `policySource` (the file is not read again),
    ///   so the detail names the source rather than a file that is fine.
    static func invalidConfig(_ errors: [String], fromSource: Bool = false) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-config", title: "The config was not applied", status: 422,
            detail: fromSource
                ? "The policy source's answer was not applied; the previous policy keeps serving."
                : "The config file is invalid or unreadable; the previous policy keeps serving.",
            extensions: ["errors": .array(errors.map(JSONValue.string))])
    }

    /// `invalid-config` for `POST /v1/policy/diff`: the same kind clients branch on, but
    /// nothing was being replaced, so it says the candidate is invalid and nothing was replayed.
    static func invalidCandidate(_ errors: [String]) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-config", title: "The candidate config is invalid", status: 422,
            detail: "The candidate config is invalid, so nothing was replayed; fix the errors below and post it again.",
            extensions: ["errors": .array(errors.map(JSONValue.string))])
    }

    /// `invalid-config` for `POST /v1/policy/analyze`: a posted config (or the query's match) is invalid.
    static func invalidAnalyzed(_ errors: [String]) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-config", title: "A posted config is invalid", status: 422,
            detail: "A posted config or the query's match is invalid, so nothing was analyzed; fix the errors below.",
            extensions: ["errors": .array(errors.map(JSONValue.string))])
    }

    /// `POST /v1/policy/diff` without `requests` when the decision log gave nothing to replay.
    static func nothingToReplay(logPath: String?, linesRead: Int) -> ProblemDetails {
        let why =
            logPath == nil
            ? "this daemon writes no decision log (serve --decision-log)"
            : "its decision log has no request to replay (\(linesRead) line\(linesRead == 1 ? "" : "s") read)"
        return ProblemDetails(
            kind: "nothing-to-replay", title: "Nothing to replay", status: 409,
            detail: "No \"requests\" were posted and \(why); post the requests to replay in \"requests\".")
    }

    static let noPolicy = ProblemDetails(
        kind: "no-policy", title: "No policy loaded", status: 503,
        detail: "No valid policy is active yet, so no decision can be made.")

    static let notReady = ProblemDetails(
        kind: "not-ready", title: "Not ready", status: 503, detail: "The server is shutting down.")
}
