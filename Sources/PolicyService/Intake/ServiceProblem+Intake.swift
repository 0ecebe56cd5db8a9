import HTTPServer
import JSONSupport
import ShareIntake

extension ServiceProblem {
    /// An intake failure as a problem, with the header fields its kind calls for.
    init(_ failure: IntakeFailure) {
        var details = ProblemDetails(
            kind: failure.kind.rawValue, title: failure.kind.title, status: HTTPStatus(code: failure.kind.status))
        details.detail = failure.detail
        details.extensions = failure.extensions
        var headers = HTTPHeaders()
        switch failure.kind {
        case .unsupportedMediaType:
            let accepted =
                failure.extensions["accepted"]?.arrayValue?.compactMap(\.stringValue) ?? PayloadParser.acceptedMediaTypes
            headers.add(name: .acceptPost, value: accepted.joined(separator: ", "))
        case .idempotencyInFlight, .storageUnavailable:
            // The store says how long its fault usually lasts (a lock: 1 s; a full disk: 30 s).
            let seconds = failure.extensions["retryAfter"]?.integerValue ?? 1
            headers.add(name: .retryAfter, value: String(max(1, seconds)))
        default:
            break
        }
        self.init(details, headers: headers)
    }
}
