/// Allows the navigation and stops the chain: an allow-list placed ahead of later cancels.
public struct AllowHandler: ConfigurableHandler {
    public static let typeName = "allow"
    public static let parameterKeys: [String] = []

    public let name: String

    /// An allow handler with this name (it reads no parameters).
    public init(name: String) {
        self.name = name
    }

    public init?(name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        self.init(name: name)
    }

    public func decide(_ request: CanonicalRequest) -> Decision? {
        Decision(verdict: .allow, handler: name, action: nil, location: nil, url: request.href)
    }

    public var chainHandler: ChainHandler { .allow(self) }
}
