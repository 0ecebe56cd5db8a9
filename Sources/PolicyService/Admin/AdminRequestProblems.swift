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

extension DecideEndpoints {
    /// ``requireJSON(_:)``, and a `charset` parameter, when given, must be UTF-8: the body is
    /// parsed as UTF-8, so `charset=latin1` would be read as something the client did not
    /// send. 415 as the intake endpoints answer it (``ShareIntake/PayloadParser``).
    static func requireUTF8JSON(_ request: HTTPRequest) throws(ServiceProblem) {
        try requireJSON(request)
        guard let contentType = request.headers["Content-Type"] else { return }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingBlanks.lowercased() == "charset" else { continue }
            var value = pair[1].trimmingBlanks
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard value.lowercased() != "utf-8" else { continue }
            throw ServiceProblem(
                ProblemDetails(
                    kind: "unsupported-media-type", title: "Unsupported media type", status: 415,
                    detail: "only UTF-8 is accepted, not charset=\(value)"),
                headers: HTTPHeaders([("Accept-Post", "application/json")]))
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
