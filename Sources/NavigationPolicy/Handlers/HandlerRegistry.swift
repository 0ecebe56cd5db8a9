import JSONSupport

/// Handler types by config `type` string.
public struct HandlerRegistry: Sendable {
    /// What the compiler needs of one type: its name, the fields it reads and how to build it.
    struct Entry: Sendable {
        let typeName: String
        let parameterKeys: [String]
        /// The type's `init(name:parameters:diagnostics:)`, as the chain holds what it builds.
        let build: @Sendable (_ name: String, _ parameters: ConfigObject, _ diagnostics: inout ConfigDiagnostics) -> ChainHandler?
        #if !hasFeature(Embedded)
            /// The type itself (``HandlerRegistry/type(named:)``); Embedded Swift has no metatypes of protocol type.
            let type: any ConfigurableHandler.Type
        #endif

        init<Handler: ConfigurableHandler>(_ type: Handler.Type) {
            typeName = Handler.typeName
            parameterKeys = Handler.parameterKeys
            build = { name, parameters, diagnostics in
                Handler(name: name, parameters: parameters, diagnostics: &diagnostics)?.chainHandler
            }
            #if !hasFeature(Embedded)
                self.type = type
            #endif
        }
    }

    /// By their names' bytes: a `String` key hashes and compares a hostile `type` normalized,
    /// quadratic in a run of combining marks (outside attack 16, F4).
    private let entries: [UTF8Key: Entry]
    /// Type names in registration order, for error messages and docs.
    public let typeNames: [String]

    init(entries: [Entry]) {
        var byName: [UTF8Key: Entry] = [:]
        for entry in entries { byName[UTF8Key(entry.typeName)] = entry }
        self.entries = byName
        self.typeNames = entries.map { $0.typeName }
    }

    /// The types navpolicyd ships. Register a new type by adding it here (and its case to
    /// ``ChainHandler``).
    public static let builtIn = HandlerRegistry(entries: [
        Entry(LogoutHandler.self),
        Entry(AboutHandler.self),
        Entry(PaymentRedirectHandler.self),
        Entry(CancelHandler.self),
        Entry(AllowHandler.self),
    ])

    /// The entry for a config `type` name, or nil for a name no type registered.
    func entry(named name: String) -> Entry? {
        entries[UTF8Key(name)]
    }
}
