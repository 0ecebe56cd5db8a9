/// Cancels the navigation with a configurable action (default `block`) and an optional location template.
public struct CancelHandler: CancellingHandler {
    public static let typeName = "cancel"
    public static let defaultAction = "block"
    public static let locationRule = CancelBehavior.LocationRule.optional

    public let name: String
    public let behavior: CancelBehavior

    public init(name: String, behavior: CancelBehavior) {
        self.name = name
        self.behavior = behavior
    }

    public var chainHandler: ChainHandler { .cancel(self) }
}
