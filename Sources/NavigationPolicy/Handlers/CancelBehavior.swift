import JSONSupport

/// What every cancelling handler does: cancel with an action and, optionally, a location, and
/// say how the cancel is answered over HTTP (`response`, ``DenialResponse``).
///
/// The built-in cancel types differ only in their default action and in whether they
/// take a `location`; this is the one place that reads those fields and builds the decision.
public struct CancelBehavior: Sendable {
    /// How a type treats `location`.
    public enum LocationRule: Sendable {
        /// The type takes no `location` field.
        case notAllowed
        /// Optional template; without one the decision has no location.
        case optional
        /// Optional template; without one the location is the request's href.
        case defaultsToRequestURL
    }

    public let action: String
    public let location: LocationTemplate?
    package let locationRule: LocationRule
    /// The handler's `response`: status and fields of its cancels over HTTP; nil for the defaults.
    public let response: DenialResponse?

    /// Reads `action` (defaulting to `defaultAction`) and, if the rule allows, `location`.
    public init?(
        defaultAction: String, locationRule: LocationRule, parameters: ConfigObject,
        diagnostics: inout ConfigDiagnostics
    ) {
        let before = diagnostics.count
        var action = defaultAction
        if let configured = parameters.string("action", diagnostics: &diagnostics) {
            if Self.isValidAction(configured) {
                action = configured
            } else {
                diagnostics.report(
                    parameters.pointer.appending("action"),
                    "\"\(configured)\": an action is 1 to 64 letters, digits, \"-\", \"_\" or \".\"")
            }
        }
        var location: LocationTemplate?
        if locationRule != .notAllowed, let template = parameters.string("location", diagnostics: &diagnostics) {
            switch LocationTemplate.compile(template) {
            case .success(let parsed): location = parsed
            case .failure(let error):
                // JSON-quoted: a template with a CR/LF must not break the error line it is refused in.
                var quoted = JSONWriter()
                quoted.writeString(template)
                diagnostics.report(parameters.pointer.appending("location"), "\(quoted.string): \(error.reason)")
            }
        }
        var response: DenialResponse?
        if let object = parameters.object("response", diagnostics: &diagnostics) {
            let hasLocation = location != nil || locationRule == .defaultsToRequestURL
            response = DenialResponse.decode(object, hasLocation: hasLocation, diagnostics: &diagnostics)
        }
        guard diagnostics.count == before else { return nil }
        self.action = action
        self.location = location
        self.locationRule = locationRule
        self.response = response
    }

    /// The cancel decision for a request.
    public func decision(for request: CanonicalRequest, handler: String) -> Decision {
        // Read once: each `request.href` copied the whole URL record to get at its string.
        let href = request.href
        let resolvedLocation: String? =
            switch (location, locationRule) {
            case (let template?, _): template.render(href: href)
            case (nil, .defaultsToRequestURL): href
            case (nil, _): nil
            }
        return Decision(
            verdict: .cancel, handler: handler, action: action, location: resolvedLocation, url: href, response: response)
    }

    /// The fields a type with this rule reads.
    public static func parameterKeys(for rule: LocationRule) -> [String] {
        rule == .notAllowed ? ["action", "response"] : ["action", "location", "response"]
    }

    private static func isValidAction(_ action: String) -> Bool {
        (1...64).contains(action.utf8.count)
            && action.utf8.allSatisfy { MatchPath.isUnreserved($0) && $0 != UInt8(ascii: "~") }
    }
}
