public import JSONSupport

/// Turns config JSON into a ``CompiledPolicy``, or reports every problem with its JSON pointer.
public struct PolicyCompiler: Sendable {
    public var registry: HandlerRegistry

    /// Validates one reserved section (`server`, `intake`, `proxy`) in the same pass as the
    /// chain, so `validate` and reloads report its errors with the rest.
    public typealias SectionValidator = @Sendable (ConfigObject, inout ConfigDiagnostics) -> Void

    /// Validators by section name; a section without one is only checked to be an object.
    public var sectionValidators: [String: SectionValidator] = [:]

    /// Checks that span sections (a listener in `server` clashing with one in `proxy`), run
    /// with the whole document after the section validators.
    public var documentValidators: [SectionValidator] = []

    /// Top-level keys of a config. `server`, `intake` and `proxy` belong to the front ends.
    public static let topLevelKeys = ["defaultDecision", "handlers", "server", "intake", "proxy"]
    static let reservedSections = ["server", "intake", "proxy"]
    static let handlerKeys = ["name", "type", "match", "mode"]

    /// Deepest nesting a config may have; real configs need 5.
    static let maximumDepth = 32

    public init(registry: HandlerRegistry = .builtIn, sectionValidators: [String: SectionValidator] = [:]) {
        self.registry = registry
        self.sectionValidators = sectionValidators
    }

    /// Compiles config bytes.
    public func compile(_ bytes: some Collection<UInt8>) throws(ConfigError) -> CompiledPolicy {
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: Self.maximumDepth, rejectsDuplicateMembers: false).parse(bytes)
        } catch {
            throw ConfigError(issues: [ConfigIssue(pointer: .root, message: JSONSlipHint.describe(error, in: bytes))])
        }
        return try compile(document)
    }

    /// Compiles a parsed config document.
    public func compile(_ document: JSONValue) throws(ConfigError) -> CompiledPolicy {
        var diagnostics = ConfigDiagnostics()
        guard let root = ConfigObject.expect(document, at: .root, diagnostics: &diagnostics) else {
            throw ConfigError(issues: diagnostics.issues)
        }
        root.checkKeys(allowed: Self.topLevelKeys, diagnostics: &diagnostics)

        var defaultVerdict = Decision.Verdict.allow
        if let text = root.string("defaultDecision", diagnostics: &diagnostics) {
            if let verdict = Decision.Verdict(rawValue: text) {
                defaultVerdict = verdict
            } else {
                diagnostics.report(
                    .root.appending("defaultDecision"), "\"\(text)\": expected \"allow\" or \"cancel\"")
            }
        }

        var sections = JSONObject()
        for key in Self.reservedSections {
            guard let value = root.object[key] else { continue }
            if let section = ConfigObject.expect(value, at: .root.appending(key), diagnostics: &diagnostics) {
                sectionValidators[key]?(section, &diagnostics)
                sections.append(key, value)
            }
        }

        for validator in documentValidators { validator(root, &diagnostics) }
        let links = compileHandlers(root, diagnostics: &diagnostics)
        guard diagnostics.isEmpty else { throw ConfigError(issues: diagnostics.issues) }
        return CompiledPolicy(defaultVerdict: defaultVerdict, links: links, sections: sections)
    }

    private func compileHandlers(_ root: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [ChainLink] {
        guard let value = root.object["handlers"] else { return [] }
        let listPointer = JSONPointer.root.appending("handlers")
        guard case .array(let entries) = value else {
            diagnostics.report(listPointer, "expected an array of handlers, got \(value.kindName)")
            return []
        }
        var links: [ChainLink] = []
        links.reserveCapacity(entries.count)
        var firstIndexByName: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            guard let config = ConfigObject.expect(entry, at: listPointer.appending(index), diagnostics: &diagnostics)
            else { continue }
            if let name = config.string("name", required: true, diagnostics: &diagnostics), isValidName(name) {
                if let first = firstIndexByName[name] {
                    diagnostics.report(
                        config.pointer.appending("name"),
                        "duplicate handler name \"\(name)\" (first used at \(listPointer.appending(first)))")
                } else {
                    firstIndexByName[name] = index
                }
            } else if let name = config.object["name"]?.stringValue {
                diagnostics.report(
                    config.pointer.appending("name"),
                    "\"\(name)\": a name is 1 to 64 letters, digits, \"-\", \"_\" or \".\", starting with a letter or digit")
            }
            if let link = compileHandler(config, diagnostics: &diagnostics) { links.append(link) }
        }
        return links
    }

    private func compileHandler(_ config: ConfigObject, diagnostics: inout ConfigDiagnostics) -> ChainLink? {
        let typeName = config.string("type", required: true, diagnostics: &diagnostics)
        var handlerType: (any ConfigurableHandler.Type)?
        if let typeName {
            handlerType = registry.type(named: typeName)
            if handlerType == nil {
                var message = "unknown handler type \"\(typeName)\""
                if let suggestion = Spelling.closest(to: typeName, in: registry.typeNames) {
                    message += "; did you mean \"\(suggestion)\"?"
                } else {
                    message += "; known types: " + registry.typeNames.map { "\"\($0)\"" }.joined(separator: ", ")
                }
                diagnostics.report(config.pointer.appending("type"), message)
            }
        }
        // Fields depend on the type; with an unknown type that error is the one worth reading.
        if let handlerType {
            config.checkKeys(allowed: Self.handlerKeys + handlerType.parameterKeys, diagnostics: &diagnostics)
        }
        let matcher =
            config.object("match", diagnostics: &diagnostics).map { RequestMatcher.decode($0, diagnostics: &diagnostics) }
            ?? .everything
        let name = config.object["name"]?.stringValue ?? ""
        var isShadow = false
        if let mode = config.string("mode", diagnostics: &diagnostics) {
            switch mode {
            case "shadow": isShadow = true
            case "enforce": isShadow = false
            default:
                diagnostics.report(
                    config.pointer.appending("mode"),
                    "\"\(mode)\": expected \"enforce\" (the default: the handler decides) or \"shadow\" (recorded, never decides)"
                )
            }
        }
        guard let handlerType, let typeName,
            let handler = handlerType.init(name: name, parameters: config, diagnostics: &diagnostics)
        else { return nil }
        return ChainLink(name: name, type: typeName, matcher: matcher, handler: handler, isShadow: isShadow)
    }

    private func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first, MatchPath.isUnreserved(first),
            first != UInt8(ascii: "-"), first != UInt8(ascii: "."), first != UInt8(ascii: "_")
        else { return false }
        return name.utf8.allSatisfy { MatchPath.isUnreserved($0) && $0 != UInt8(ascii: "~") }
    }
}
