/// One navigation as a web view reports it, before any canonicalization.
///
/// Every front end (CLI flags, HTTP query or JSON, intake payloads, proxied requests)
/// translates its input into this value; nothing downstream sees the raw input.
public struct NavigationRequest: Sendable, Equatable {
    /// The URL exactly as received.
    public var url: String
    /// The HTTP method; compared case-insensitively (normalized to upper case).
    public var method: String
    public var navigationType: NavigationType
    public var targetFrame: TargetFrame
    /// The page that started the navigation, when known. Validated, not matched on.
    public var sourceURL: String?
    /// ``url`` without the port a client chose, when an enforcement point took the port from a
    /// field the client sets (an edge's `Host`): such a port means nothing to an origin that
    /// serves the same pages on every port, so the chain decides this URL too and a cancel in
    /// either reading wins (``CompiledPolicy/decide(_:explain:)``). Nil for every other request.
    public var urlWithoutClientPort: String?

    public init(
        url: String,
        method: String = "GET",
        navigationType: NavigationType = .other,
        targetFrame: TargetFrame = .main,
        sourceURL: String? = nil
    ) {
        self.url = url
        self.method = method
        self.navigationType = navigationType
        self.targetFrame = targetFrame
        self.sourceURL = sourceURL
    }
}

/// A navigation request that cannot be decided because a field is invalid.
public struct NavigationRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request field at fault, as named in the JSON API (`url`, `method`, `navigationType`, …).
    public var field: String
    /// What is wrong, phrased for the person who sent it.
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}

extension NavigationRequest {
    /// Largest URL accepted, in UTF-8 bytes. Browsers cap URLs around 2 MB, but a
    /// navigation policy has no use for more than this and must bound its work.
    public static let maximumURLLength = 32_768

    /// Parses a `navigationType` spelling, with an error that lists the accepted values.
    public static func navigationType(from text: String) throws(NavigationRequestError) -> NavigationType {
        guard let value = NavigationType.spelled(text) else {
            throw NavigationRequestError(
                field: "navigationType",
                reason: "unknown value \"\(EchoedText.bounded(text))\"; expected one of \(NavigationType.acceptedValuesList)")
        }
        return value
    }

    /// Parses a `targetFrame` spelling, with an error that lists the accepted values.
    public static func targetFrame(from text: String) throws(NavigationRequestError) -> TargetFrame {
        guard let value = TargetFrame.spelled(text) else {
            throw NavigationRequestError(
                field: "targetFrame",
                reason: "unknown value \"\(EchoedText.bounded(text))\"; expected one of \(TargetFrame.acceptedValuesList)")
        }
        return value
    }
}
