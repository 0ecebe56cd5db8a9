/// What a handler does to every request it decides, as far as equivalence is concerned:
/// the verdict, the action, how the location is made and how the cancel is answered over HTTP
/// (`response`). Two handlers with equal outcomes decide every request alike (a location
/// template renders the same href the same way) and answer it alike.
struct HandlerOutcome: Equatable {
    enum Location: Equatable {
        case none
        /// The request's own href (payment-redirect without a template).
        case requestURL
        case template(LocationTemplate)
        /// A handler type the analysis does not know: compared by name, never equal to another.
        case unknownType(String)
    }

    var verdict: Decision.Verdict
    var action: String?
    var location: Location
    /// The handler's `response`: a 404 and a 403 cancel are not the same answer.
    var response: DenialResponse?
    /// Set only when handler names are compared too (`--compare handler`).
    var handler: String?

    /// The outcome of a chain link.
    init(_ link: ChainLink, comparingNames: Bool) {
        handler = comparingNames ? link.name : nil
        response = nil
        if link.handler.isAllow {
            verdict = .allow
            action = nil
            location = .none
        } else if let behavior = link.handler.cancelBehavior {
            verdict = .cancel
            action = behavior.action
            response = behavior.response
            location =
                switch (behavior.location, behavior.locationRule) {
                case (let template?, _): .template(template)
                case (nil, .defaultsToRequestURL): .requestURL
                case (nil, _): .none
                }
        } else {
            verdict = .cancel
            action = nil
            location = .unknownType(link.type + "\u{0}" + link.name)
        }
    }

    /// The default decision's outcome.
    init(default verdict: Decision.Verdict) {
        self.verdict = verdict
        action = verdict == .cancel ? "block" : nil
        location = .none
        response = nil
        handler = nil
    }

    /// Whether a handler type is one the analysis models (it always decides when it matches).
    static func isModelled(_ link: ChainLink) -> Bool {
        link.handler.isAllow || link.handler.cancelBehavior != nil
    }
}
