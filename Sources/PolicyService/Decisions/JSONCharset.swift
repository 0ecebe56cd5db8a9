import HTTPServer
import JSONSupport
import NavigationPolicy

extension DecideEndpoints {
    /// A `charset` parameter of a JSON `Content-Type`, when given, must be UTF-8: every JSON
    /// body is parsed as UTF-8, so `charset=latin1` would be read as something the client did
    /// not send. 415 as the intake endpoints answer it (``ShareIntake/PayloadParser``).
    /// Before, only `/v1/policy/analyze` checked it; `/v1/decide` and `/v1/policy/diff`
    /// accepted any charset.
    static func requireUTF8Charset(_ contentType: String?) throws(ServiceProblem) {
        guard let contentType else { return }
        // Split by bytes: split as `Character`s, a parameter of one long run of combining marks
        // was one `Character` whose every comparison normalized it (outside attack 15, F5).
        for parameter in contentType.utf8.split(separator: UInt8(ascii: ";")).dropFirst() {
            let pair = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, Substring(pair[0]).trimmingBlanks.lowercased().hasSameUTF8(as: "charset") else {
                continue
            }
            var value = Substring(pair[1]).trimmingBlanks.utf8[...]
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            guard !Substring(value).lowercased().hasSameUTF8(as: "utf-8") else { continue }
            throw ServiceProblem(
                ProblemDetails(
                    kind: "unsupported-media-type", title: "Unsupported media type", status: 415,
                    detail: "only UTF-8 is accepted, not charset=\(EchoedText.bounded(String(Substring(value))))"),
                headers: HTTPHeaders([(.acceptPost, "application/json")]))
        }
    }
}
