// What only a native build has of handlers: types an app registers itself, held as values of
// protocol type (`any NavigationHandler`) and built through their metatypes, and handlers seen
// through reflection. Embedded Swift (the WebAssembly build, docs/architecture.md "The core as
// Embedded Swift") has none of these, so there the registry holds only the built-in types and
// ``RegisteredHandler`` has no values. The engine's handlers are compiled differently for it here
// and in ``HandlerRegistry/Entry`` (the stored metatype) only.

#if hasFeature(Embedded)
    /// A handler of a type an app registered: none exists in an Embedded Swift build, which has
    /// no values of protocol type (the chain holds only the built-in types).
    public enum RegisteredHandler: Sendable {
        var name: String { switch self {} }
        func decide(_ request: CanonicalRequest) -> Decision? { switch self {} }
        var cancelBehavior: CancelBehavior? { switch self {} }
    }
#else
    /// A handler of a type an app registered (``HandlerRegistry/init(_:)``), as its protocol.
    public struct RegisteredHandler: Sendable {
        /// The handler as built from config.
        public let handler: any NavigationHandler

        var name: String { handler.name }
        func decide(_ request: CanonicalRequest) -> Decision? { handler.decide(request) }
        var cancelBehavior: CancelBehavior? { (handler as? any CancellingHandler)?.behavior }
    }

    extension ConfigurableHandler {
        /// A type that is not built in is held as itself, as its protocol.
        public var chainHandler: ChainHandler { .registered(RegisteredHandler(handler: self)) }
    }

    extension ChainHandler {
        /// The handler as its protocol, whatever its type (for reflection and casts to an app's own types).
        public var base: any NavigationHandler {
            switch self {
            case .logout(let handler): handler
            case .about(let handler): handler
            case .paymentRedirect(let handler): handler
            case .cancel(let handler): handler
            case .allow(let handler): handler
            case .registered(let registered): registered.handler
            }
        }
    }

    /// Reflected as the handler it holds, as when the chain held `any NavigationHandler`: the
    /// analysis's model and the match forms' storage check read a handler's stored fields.
    extension ChainHandler: CustomReflectable {
        public var customMirror: Mirror { Mirror(reflecting: base) }
    }

    extension HandlerRegistry {
        /// A registry of these types: the built-in ones (``builtIn``'s) and an app's own. Their
        /// order is the order of ``typeNames``.
        public init(_ types: [any ConfigurableHandler.Type]) {
            self.init(entries: types.map { Entry($0) })
        }

        /// The type registered under a config `type` name.
        public func type(named name: String) -> (any ConfigurableHandler.Type)? {
            entry(named: name)?.type
        }
    }
#endif
