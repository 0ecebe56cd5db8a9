import HTTPServer
import JSONSupport

/// Problems of the admin endpoints that take a JSON body (`POST /v1/policy/diff`,
/// `POST /v1/policy/analyze`), worded for what was asked.
extension ProblemDetails {
    /// `invalid-request` (the kind clients branch on, as every endpoint's) titled for the
    /// endpoint: "Invalid navigation request" said that a navigation was at fault (outside
    /// attack 7, F5), as ``invalidIntakeQuery(_:field:)`` does for the intake listing.
    static func invalidAdminRequest(_ detail: String, field: String?, title: String) -> ProblemDetails {
        ProblemDetails(
            kind: "invalid-request", title: title, status: 400, detail: detail,
            extensions: field.map { ["field": .string($0)] } ?? [:])
    }

    /// The title of `invalid-request` from `POST /v1/policy/analyze`.
    static let invalidAnalysisRequestTitle = "Invalid analysis request"
    /// The title of `invalid-request` from `POST /v1/policy/diff`.
    static let invalidDiffRequestTitle = "Invalid diff request"
}
