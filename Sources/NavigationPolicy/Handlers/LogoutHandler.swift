/// Cancels the navigation and asks the app to log the user out natively (`action: "logout"`).
public struct LogoutHandler: CancellingHandler {
    public static let typeName = "logout"
    public static let defaultAction = "logout"
    public static let locationRule = CancelBehavior.LocationRule.notAllowed

    public let name: String
    public let behavior: CancelBehavior

    public init(name: String, behavior: CancelBehavior) {
        self.name = name
        self.behavior = behavior
    }

    public var chainHandler: ChainHandler { .logout(self) }
}
