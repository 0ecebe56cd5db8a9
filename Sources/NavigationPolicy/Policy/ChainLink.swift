/// One compiled handler in chain order: its match block and its behaviour.
public struct ChainLink: Sendable {
    /// Unique handler name from config.
    public let name: String
    /// The config `type` string.
    public let type: String
    public let matcher: RequestMatcher
    public let handler: any NavigationHandler
}
