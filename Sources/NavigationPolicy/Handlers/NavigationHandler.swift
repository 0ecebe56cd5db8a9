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
/// Adding a type is one file with a conforming struct plus one line in
/// ``HandlerRegistry/builtIn``.
public protocol ConfigurableHandler: NavigationHandler {
    /// The config `type` string (`"logout"`).
    static var typeName: String { get }
    /// Fields the type reads from its config entry, besides `name`, `type` and `match`.
    static var parameterKeys: [String] { get }
    /// Builds the handler, reporting invalid parameters; returns nil when it cannot be built.
    init?(name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics)
    /// ``init(name:parameters:diagnostics:)``, boxed as a handler; what the compiler calls.
    static func makeHandler(
        name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics
    ) -> (any NavigationHandler)?
}

extension ConfigurableHandler {
    /// Builds `Self` through the initializer. A requirement rather than a call to the
    /// initializer through `any ConfigurableHandler.Type`: that call returned an
    /// `Optional<opened type>` whose metadata the runtime looked up for every handler compiled
    /// (~470 instructions each); through each type's witness `Self` is concrete.
    public static func makeHandler(
        name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics
    ) -> (any NavigationHandler)? {
        guard let handler = Self(name: name, parameters: parameters, diagnostics: &diagnostics) else { return nil }
        return handler
    }
}
