/// Cancels the navigation and asks the app to show its native About screen (`action: "show-about"`).
public struct AboutHandler: CancellingHandler {
    public static let typeName = "about"
    public static let defaultAction = "show-about"
    public static let locationRule = CancelBehavior.LocationRule.notAllowed

    public let name: String
    public let behavior: CancelBehavior

    public init(name: String, behavior: CancelBehavior) {
        self.name = name
        self.behavior = behavior
    }

    public var chainHandler: ChainHandler { .about(self) }
}
