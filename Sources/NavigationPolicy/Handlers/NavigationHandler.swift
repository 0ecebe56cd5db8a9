/// One link of the chain: decides, or passes to the next link.
///
/// The chain only asks a handler whose `match` block holds, so a handler's `decide`
/// contains the type's behaviour, not matching. Returning nil passes.
public protocol NavigationHandler: Sendable {
    /// The handler's unique name from config; reported as the decision's `handler`.
    var name: String { get }
    func decide(_ request: CanonicalRequest) -> Decision?
}

/// A handler type that can be built from a config entry: the unit the registry knows.
///
/// A built-in type is one file with a conforming struct, its case in ``ChainHandler`` and one
/// line in ``HandlerRegistry/builtIn``; an app's own type is the struct and a registry listing it.
public protocol ConfigurableHandler: NavigationHandler {
    /// The config `type` string (`"logout"`).
    static var typeName: String { get }
    /// Fields the type reads from its config entry, besides `name`, `type` and `match`.
    static var parameterKeys: [String] { get }
    /// Builds the handler, reporting invalid parameters; returns nil when it cannot be built.
    init?(name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics)
    /// This handler as the chain holds it: its ``ChainHandler`` case (a type an app registers
    /// gets ``ChainHandler/registered(_:)`` natively, without writing this).
    var chainHandler: ChainHandler { get }
}
