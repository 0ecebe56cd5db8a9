/// A handler type whose whole behaviour is "cancel with this default action".
///
/// Conforming types declare their default action and location rule; reading `action` and
/// `location` from config and building the decision is shared (``CancelBehavior``).
public protocol CancellingHandler: ConfigurableHandler {
    static var defaultAction: String { get }
    static var locationRule: CancelBehavior.LocationRule { get }
    var behavior: CancelBehavior { get }
    init(name: String, behavior: CancelBehavior)
}

extension CancellingHandler {
    public static var parameterKeys: [String] { CancelBehavior.parameterKeys(for: locationRule) }

    public init?(name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        guard
            let behavior = CancelBehavior(
                defaultAction: Self.defaultAction, locationRule: Self.locationRule, parameters: parameters,
                diagnostics: &diagnostics)
        else { return nil }
        self.init(name: name, behavior: behavior)
    }

    public func decide(_ request: CanonicalRequest) -> Decision? {
        behavior.decision(for: request, handler: name)
    }
}
