/// The handler of a chain link, held as its own type: one case per built-in type.
///
/// An enum rather than `any NavigationHandler`: the chain walk calls each type's `decide`
/// directly, with no existential box to copy, retain and dispatch through, and the core compiles
/// as Embedded Swift (the WebAssembly build), which has no values of protocol type at all. A type
/// an app registers itself (``HandlerRegistry/init(_:)``) is held as ``registered(_:)``.
///
/// Adding a built-in type adds its case here (the switches below then say what it does) and its
/// ``ConfigurableHandler/chainHandler`` in its own file.
public enum ChainHandler: NavigationHandler {
    case logout(LogoutHandler)
    case about(AboutHandler)
    case paymentRedirect(PaymentRedirectHandler)
    case cancel(CancelHandler)
    case allow(AllowHandler)
    /// A type an app registered; natively only (none exists in the WebAssembly build).
    case registered(RegisteredHandler)

    /// The handler's unique name from config.
    public var name: String {
        switch self {
        case .logout(let handler): handler.name
        case .about(let handler): handler.name
        case .paymentRedirect(let handler): handler.name
        case .cancel(let handler): handler.name
        case .allow(let handler): handler.name
        case .registered(let handler): handler.name
        }
    }

    /// The handler's decision for a request its `match` block holds for, or nil when it passes.
    public func decide(_ request: CanonicalRequest) -> Decision? {
        switch self {
        case .logout(let handler): handler.decide(request)
        case .about(let handler): handler.decide(request)
        case .paymentRedirect(let handler): handler.decide(request)
        case .cancel(let handler): handler.decide(request)
        case .allow(let handler): handler.decide(request)
        case .registered(let handler): handler.decide(request)
        }
    }

    /// What a cancelling type does (its action and location), or nil for allow and for a
    /// registered type that is no ``CancellingHandler``: what the status page, lint and the
    /// analysis read of a handler.
    public var cancelBehavior: CancelBehavior? {
        switch self {
        case .logout(let handler): handler.behavior
        case .about(let handler): handler.behavior
        case .paymentRedirect(let handler): handler.behavior
        case .cancel(let handler): handler.behavior
        case .allow: nil
        case .registered(let handler): handler.cancelBehavior
        }
    }

    /// Whether this is the built-in allow type (an allow-list: its undecided `urlPatterns` do
    /// not match, so it fails closed).
    public var isAllow: Bool {
        if case .allow = self { true } else { false }
    }
}
