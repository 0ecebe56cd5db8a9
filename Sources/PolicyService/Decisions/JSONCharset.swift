import HTTPServer
import JSONSupport

extension DecideEndpoints {
    /// A `charset` parameter of a JSON `Content-Type`, when given, must be UTF-8: every JSON
    /// body is parsed as UTF-8, so `charset=latin1` would be read as something the client did
    /// not send. 415 as the intake endpoints answer it (``ShareIntake/PayloadParser``).
    /// Before, only `/v1/policy/analyze` checked it; `/v1/decide` and `/v1/policy/diff`
    /// accepted any charset.
    static func requireUTF8Charset(_ contentType: String?) throws(ServiceProblem) {
        guard let contentType else { return }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingBlanks.lowercased().hasSameUTF8(as: "charset") else { continue }
            var value = pair[1].trimmingBlanks
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard value.lowercased() != "utf-8" else { continue }
            throw ServiceProblem(
                ProblemDetails(
                    kind: "unsupported-media-type", title: "Unsupported media type", status: 415,
                    detail: "only UTF-8 is accepted, not charset=\(value)"),
                headers: HTTPHeaders([(.acceptPost, "application/json")]))
        }
    }
}
