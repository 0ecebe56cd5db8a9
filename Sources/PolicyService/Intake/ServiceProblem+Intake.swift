import HTTPServer
import JSONSupport
import ShareIntake

extension IntakeFailure {
    /// The failure as an RFC 9457 problem response, with the headers its kind calls for.
    func response(typePrefix: String) -> HTTPResponse {
        var problem = ProblemDetails(kind: kind.rawValue, title: kind.title, status: kind.status, detail: detail)
        problem.extensions = extensions
        var response = problem.response(typePrefix: typePrefix)
        switch kind {
        case .unsupportedMediaType:
            let accepted = extensions["accepted"]?.arrayValue?.compactMap(\.stringValue) ?? PayloadParser.acceptedMediaTypes
            response.headers.add(name: "Accept-Post", value: accepted.joined(separator: ", "))
        case .idempotencyInFlight, .storageUnavailable:
            response.headers.add(name: "Retry-After", value: "1")
        default:
            break
        }
        return response
    }
}
