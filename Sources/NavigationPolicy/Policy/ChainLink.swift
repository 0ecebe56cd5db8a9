/// One compiled handler in chain order: its match block and its behaviour.
///
/// A class so that walking the chain passes one reference per link instead of copying
/// (and retaining every field of) a struct.
public final class ChainLink: Sendable {
    /// Unique handler name from config.
    public let name: String
    /// The config `type` string.
    public let type: String
    public let matcher: RequestMatcher
    /// What the link does when its matcher holds, held as its own type (``ChainHandler``).
    public let handler: ChainHandler
    /// `"mode": "shadow"`: evaluated and recorded in ``Decision/shadow``, but never decides.
    public let isShadow: Bool

    init(name: String, type: String, matcher: RequestMatcher, handler: ChainHandler, isShadow: Bool = false) {
        self.name = name
        self.type = type
        // Fail closed when the decision's regexp budget stops a `urlPatterns` run: an
        // allow-list does not match, every other (cancelling) handler does.
        self.matcher = matcher.readingUndecidedURLPatterns(as: !handler.isAllow)
        self.handler = handler
        self.isShadow = isShadow
    }
}

extension ChainLink {
    /// A link that only carries a query's matcher (named "the query"), for analysis messages:
    /// it is never asked to decide, so its handler is a plain allow.
    package static func probe(_ matcher: RequestMatcher) -> ChainLink {
        ChainLink(name: "the query", type: "query", matcher: matcher, handler: .allow(AllowHandler(name: "the query")))
    }
}
