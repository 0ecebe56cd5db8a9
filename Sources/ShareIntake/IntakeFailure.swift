public import JSONSupport

/// Why an intake request was refused; each kind maps to one HTTP status and problem type.
///
/// The kinds are the contract of issue 4 (`malformed-body`, `no-url-found`, …); clients
/// branch on them, so they never change spelling.
public struct IntakeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable problem kind.
    public enum Kind: String, Sendable, CaseIterable {
        case malformedBody = "malformed-body"
        case unauthorized
        case policyDenied = "policy-denied"
        case notFound = "not-found"
        case idempotencyInFlight = "idempotency-in-flight"
        case payloadTooLarge = "payload-too-large"
        case unsupportedMediaType = "unsupported-media-type"
        case noURLFound = "no-url-found"
        case invalidURL = "invalid-url"
        case schemeNotAllowed = "scheme-not-allowed"
        case tooManyURLs = "too-many-urls"
        case typeIdentifierMismatch = "type-identifier-mismatch"
        case idempotencyKeyReused = "idempotency-key-reused"
        case idempotencyKeyInvalid = "idempotency-key-invalid"
        case storageUnavailable = "storage-unavailable"

        /// The HTTP status this kind is answered with.
        public var status: Int {
            switch self {
            case .malformedBody, .idempotencyKeyInvalid: 400
            case .unauthorized: 401
            case .policyDenied: 403
            case .notFound: 404
            case .idempotencyInFlight: 409
            case .payloadTooLarge: 413
            case .unsupportedMediaType: 415
            case .noURLFound, .invalidURL, .schemeNotAllowed, .tooManyURLs, .typeIdentifierMismatch,
                .idempotencyKeyReused:
                422
            case .storageUnavailable: 503
            }
        }

        /// A short summary that is the same for every occurrence.
        public var title: String {
            switch self {
            case .malformedBody: "Malformed body"
            case .unauthorized: "Authentication required"
            case .policyDenied: "Denied by the navigation policy"
            case .notFound: "No such intake item"
            case .idempotencyInFlight: "A request with this Idempotency-Key is still being processed"
            case .payloadTooLarge: "Payload too large"
            case .unsupportedMediaType: "Unsupported media type"
            case .noURLFound: "No URL found"
            case .invalidURL: "Invalid URL"
            case .schemeNotAllowed: "Scheme not allowed"
            case .tooManyURLs: "Too many URLs"
            case .typeIdentifierMismatch: "Type identifier mismatch"
            case .idempotencyKeyReused: "Idempotency-Key reused with a different request"
            case .idempotencyKeyInvalid: "Invalid Idempotency-Key"
            case .storageUnavailable: "Storage unavailable"
            }
        }
    }

    /// The problem kind.
    public var kind: Kind
    /// What is wrong with this request, phrased for the person fixing it.
    public var detail: String
    /// Extra problem members (`pointer`, `scheme`, `max`, `limit`, …).
    public var extensions: JSONObject
    /// What went wrong underneath (an SQLite message), for the log only: RFC 9457 problems
    /// are not a debugging tool, so this never reaches the client.
    public var cause: String?

    /// Creates a failure.
    public init(_ kind: Kind, _ detail: String, extensions: JSONObject = [:]) {
        self.kind = kind
        self.detail = detail
        self.extensions = extensions
    }

    /// `kind: detail`, for logs.
    public var description: String { "\(kind.rawValue): \(detail)" }

    /// A failure located at a JSON pointer inside the body.
    static func at(_ pointer: String, _ kind: Kind, _ detail: String) -> IntakeFailure {
        IntakeFailure(kind, "\(pointer): \(detail)", extensions: ["pointer": .string(pointer)])
    }
}
