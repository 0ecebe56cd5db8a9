/// Handler types by config `type` string.
public struct HandlerRegistry: Sendable {
    private let types: [String: any ConfigurableHandler.Type]
    /// Type names in registration order, for error messages and docs.
    public let typeNames: [String]

    public init(_ types: [any ConfigurableHandler.Type]) {
        var byName: [String: any ConfigurableHandler.Type] = [:]
        for type in types { byName[type.typeName] = type }
        self.types = byName
        self.typeNames = types.map { $0.typeName }
    }

    /// The types navpolicyd ships. Register a new type by adding it here.
    public static let builtIn = HandlerRegistry([
        LogoutHandler.self,
        AboutHandler.self,
        PaymentRedirectHandler.self,
        CancelHandler.self,
        AllowHandler.self,
    ])

    public func type(named name: String) -> (any ConfigurableHandler.Type)? {
        types[name]
    }
}
