/// Cancels the navigation and sends it to the system browser (`action: "open-external"`).
///
/// `location` is a template (`https://checkout.example.com/open?target={url}`); without one
/// the app opens the request URL itself.
public struct PaymentRedirectHandler: CancellingHandler {
    public static let typeName = "payment-redirect"
    public static let defaultAction = "open-external"
    public static let locationRule = CancelBehavior.LocationRule.defaultsToRequestURL

    public let name: String
    public let behavior: CancelBehavior

    public init(name: String, behavior: CancelBehavior) {
        self.name = name
        self.behavior = behavior
    }

    public var chainHandler: ChainHandler { .paymentRedirect(self) }
}
