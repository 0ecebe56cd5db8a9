public import JSONSupport

/// Turns config JSON into a ``CompiledPolicy``, or reports every problem with its JSON pointer.
public struct PolicyCompiler: Sendable {
    public var registry: HandlerRegistry

    /// Validates one section a front end reads (``ConfigSection``) in the same pass as the
    /// chain, so `validate` and reloads report its errors with the rest.
    public typealias SectionValidator = @Sendable (ConfigObject, inout ConfigDiagnostics) -> Void

    /// The sections beside the chain this compiler accepts, in the order the compiled policy
    /// keeps them (``CompiledPolicy/sections``). The front end that reads them tells the
    /// compiler: any other top-level key is refused.
    public var sections: [ConfigSection] = []

    /// Checks that span sections (a listener in `server` clashing with one in `proxy`), run
    /// with the whole document after the section validators.
    public var documentValidators: [SectionValidator] = []

    /// The top-level keys of the chain itself; ``topLevelKeys`` adds the sections.
    public static let chainKeys = ["defaultDecision", "handlers"]
    /// Top-level keys of a config: the chain's and each section's.
    public var topLevelKeys: [String] { Self.chainKeys + sections.map { $0.name } }
    package static let handlerKeys = ["name", "type", "match", "mode"]

    /// From this many entries a handler's `hosts` or `pathPrefixes` list is stored as a sorted
    /// key table, the storage a compiled image maps (``PolicyImage/defaultTableThreshold``),
    /// rather than as hashed sets with a ``MatchEntry`` per entry; nil (the default) keeps
    /// every entry. Decisions and explain traces are the same either way; lint, coverage and
    /// the analysis read entries, so the commands that run them keep the default.
    public var tableThreshold: Int?

    /// The ``tableThreshold`` the deciding commands and the daemon load JSON with.
    ///
    /// Higher than an image's (64): every request looks up each table handler's table on its
    /// own (one binary search each, ``ChainIndex``), while hashed entries share one index; from
    /// 4,096 entries a list saves far more at load (~150 bytes and a hash insert per entry) than
    /// its search costs, and a chain cannot have many such lists.
    public static let defaultTableThreshold = 4096

    /// This compiler with large lists stored as tables: what loading a policy to decide with
    /// (`check`, `serve`, reloads) uses, so a million hosts load as compactly as an image maps.
    public func storingLargeListsAsTables(threshold: Int = defaultTableThreshold) -> PolicyCompiler {
        var compiler = self
        compiler.tableThreshold = threshold
        return compiler
    }

    /// Deepest nesting a config may have; real configs need 5.
    static let maximumDepth = 32

    /// A compiler of `registry`'s handler types that accepts `sections` beside the chain.
    public init(registry: HandlerRegistry = .builtIn, sections: [ConfigSection] = []) {
        self.registry = registry
        self.sections = sections
    }

    /// Compiles config bytes.
    ///
    /// The `handlers` array is read one element at a time and each element's tree is dropped
    /// once its link is built, so a 100k-handler file never holds a full JSON tree. Issues come
    /// out exactly as ``compile(_:)-(JSONValue)`` reports them for the parsed document: a syntax
    /// error alone (wherever it is), else the document's issues, then the handlers'.
    public func compile(_ bytes: some Collection<UInt8>) throws(ConfigError) -> CompiledPolicy {
        let buffer = Array(bytes)
        let document: JSONValue
        var chain: HandlerChainBuilder?
        do {
            var reader = try JSONStreamReader(buffer, maximumDepth: Self.maximumDepth)
            (document, chain) = try readDocument(&reader)
            try reader.finish()
        } catch {
            throw ConfigError(issues: [ConfigIssue(pointer: .root, message: JSONSlipHint.describe(error, in: buffer))])
        }
        return try compile(document, streamedChain: chain)
    }

    /// Reads the root; when it is an object whose first `handlers` member is an array, that
    /// array is compiled element by element into the returned builder and stands in the
    /// document as an empty array (document validators never look into it). Within each
    /// handler, `match.hosts` and `match.pathPrefixes` are read into flat columns
    /// (``readHandler(_:)``), so no list element becomes a tree node.
    private func readDocument(_ reader: inout JSONStreamReader) throws(JSONParseError) -> (
        JSONValue, HandlerChainBuilder?
    ) {
        guard reader.nextIsObject else { return (try reader.readValue(), nil) }
        var root = JSONObject()
        var chain: HandlerChainBuilder?
        var sawHandlers = false
        try reader.beginObject()
        while let key = try reader.nextMemberKey() {
            if key.hasSameUTF8(as: "handlers"), !sawHandlers, reader.nextIsArray {
                var builder = HandlerChainBuilder(compiler: self)
                try reader.beginArray()
                let arrayStart = reader.offset
                // The array's length is unknown until its `]`: size the tables from the bytes
                // left, and look again whenever the handlers outgrow the estimate.
                var estimateAt = HandlerCountEstimate.firstSample
                while try reader.nextElement() {
                    let (entry, streamed) = try readHandler(&reader)
                    builder.add(entry, streamed: streamed)
                    if builder.count == estimateAt {
                        estimateAt = HandlerCountEstimate.capacity(
                            read: builder.count, bytesRead: reader.offset - arrayStart,
                            bytesLeft: reader.byteCount - reader.offset)
                        builder.reserveCapacity(estimateAt)
                    }
                }
                chain = builder
                root.append(key, .array([]))
            } else {
                root.append(key, try reader.readValue())
            }
            if key.hasSameUTF8(as: "handlers") { sawHandlers = true }
        }
        return (.object(root), chain)
    }

    /// Reads one `handlers` element. When it is an object, the first `match` member that is
    /// an object has the first `hosts` and `pathPrefixes` arrays read into columns and an empty
    /// array left in their place; everything else (and any repeat of those keys, which
    /// `checkKeys` reports) is read as a tree, so issues are the ones the tree would give.
    func readHandler(_ reader: inout JSONStreamReader) throws(JSONParseError) -> (JSONValue, StreamedMatchLists?) {
        guard reader.nextIsObject else { return (try reader.readValue(), nil) }
        var handler = JSONObject()
        var streamed: StreamedMatchLists?
        try reader.beginObject()
        while let key = try reader.nextMemberKey() {
            guard key.hasSameUTF8(as: "match"), handler["match"] == nil, reader.nextIsObject else {
                handler.append(key, try reader.readValue())
                continue
            }
            var match = JSONObject()
            var lists = StreamedMatchLists()
            try reader.beginObject()
            while let matchKey = try reader.nextMemberKey() {
                if StreamedMatchLists.keys.contains(matchKey), match[matchKey] == nil, reader.nextIsArray {
                    lists[matchKey] = try ConfigStringColumn.read(&reader)
                    match.append(matchKey, .array([]))
                } else {
                    match.append(matchKey, try reader.readValue())
                }
            }
            streamed = lists
            handler.append(key, .object(match))
        }
        return (.object(handler), streamed)
    }

    /// Compiles a parsed config document.
    public func compile(_ document: JSONValue) throws(ConfigError) -> CompiledPolicy {
        try compile(document, streamedChain: nil)
    }

    private func compile(_ document: JSONValue, streamedChain: HandlerChainBuilder?) throws(ConfigError)
        -> CompiledPolicy
    {
        var diagnostics = ConfigDiagnostics()
        guard let root = ConfigObject.expect(document, at: .root, diagnostics: &diagnostics) else {
            throw ConfigError(issues: diagnostics.issues)
        }
        root.checkKeys(allowed: topLevelKeys, diagnostics: &diagnostics)

        var defaultVerdict = Decision.Verdict.allow
        if let text = root.string("defaultDecision", diagnostics: &diagnostics) {
            if let verdict = DefaultDecisionForm.normalized(text) {
                defaultVerdict = verdict
            } else {
                diagnostics.report(
                    .root.appending("defaultDecision"), "\"\(EchoedText.bounded(text))\": expected \"allow\" or \"cancel\"")
            }
        }

        var sections = JSONObject()
        for declared in self.sections {
            guard let value = root.object[declared.name] else { continue }
            if let section = ConfigObject.expect(value, at: .root.appending(declared.name), diagnostics: &diagnostics) {
                declared.validate(section, &diagnostics)
                sections.append(declared.name, value)
            }
        }

        for validator in documentValidators { validator(root, &diagnostics) }
        let links: [ChainLink]
        if let streamedChain {
            diagnostics.append(streamedChain.diagnostics)
            links = streamedChain.links
        } else {
            links = compileHandlers(root, diagnostics: &diagnostics)
        }
        guard diagnostics.isEmpty else { throw ConfigError(issues: diagnostics.issues) }
        return CompiledPolicy(defaultVerdict: defaultVerdict, links: links, sections: sections)
    }

    private func compileHandlers(_ root: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [ChainLink] {
        guard let value = root.object["handlers"] else { return [] }
        guard case .array(let entries) = value else {
            diagnostics.report(.root.appending("handlers"), "expected an array of handlers, got \(value.kindName)")
            return []
        }
        var builder = HandlerChainBuilder(compiler: self)
        builder.reserveCapacity(entries.count)
        for entry in entries { builder.add(entry, streamed: nil) }
        diagnostics.append(builder.diagnostics)
        return builder.links
    }

    /// Compiles `handlers` entries in order, one at a time, checking names across them.
    private struct HandlerChainBuilder {
        let compiler: PolicyCompiler
        let listPointer = JSONPointer.root.appending("handlers")
        private(set) var links: [ChainLink] = []
        private(set) var diagnostics = ConfigDiagnostics()
        private var firstIndexByName: [String: Int] = [:]
        /// Entries added so far, valid or not.
        private(set) var count = 0

        init(compiler: PolicyCompiler) {
            self.compiler = compiler
        }

        /// Reads a slot through `inout`, so `dictionary[key, default: value]` inserts and reads in one access.
        private static func value(_ slot: inout Int) -> Int { slot }

        /// Room for `capacity` handlers in the link list and the name table.
        mutating func reserveCapacity(_ capacity: Int) {
            links.reserveCapacity(capacity)
            firstIndexByName.reserveCapacity(capacity)
        }

        mutating func add(_ entry: JSONValue, streamed: StreamedMatchLists?) {
            let index = count
            count += 1
            guard let config = ConfigObject.expect(entry, at: listPointer.appending(index), diagnostics: &diagnostics)
            else { return }
            if let name = config.string("name", required: true, diagnostics: &diagnostics), compiler.isValidName(name) {
                // One hash and probe: the slot gets `index` when the name is new, so any other
                // value is the first handler with this name (indices are distinct).
                let first = Self.value(&firstIndexByName[name, default: index])
                if first != index {
                    diagnostics.report(
                        config.pointer.appending("name"),
                        "duplicate handler name \"\(name)\" (first used at \(listPointer.appending(first)))")
                }
            } else if let name = config.object["name"]?.stringValue {
                diagnostics.report(
                    config.pointer.appending("name"),
                    "\"\(name)\": a name is 1 to 64 letters, digits, \"-\", \"_\" or \".\", starting with a letter or digit")
            }
            if let link = compiler.compileHandler(config, streamed: streamed, diagnostics: &diagnostics) {
                links.append(link)
            }
        }
    }

    fileprivate func compileHandler(
        _ config: ConfigObject, streamed: StreamedMatchLists?, diagnostics: inout ConfigDiagnostics
    ) -> ChainLink? {
        let typeName = config.string("type", required: true, diagnostics: &diagnostics)
        var handlerType: HandlerRegistry.Entry?
        if let typeName {
            handlerType = registry.entry(named: typeName)
            if handlerType == nil {
                var message = "unknown handler type \"\(EchoedText.bounded(typeName))\""
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
            config.checkKeys(allowed: Self.handlerKeys, alsoAllowed: handlerType.parameterKeys, diagnostics: &diagnostics)
        }
        let lists = RequestMatcher.ListDecoding(tableThreshold: tableThreshold, streamed: streamed)
        let matcher =
            config.object("match", diagnostics: &diagnostics).map {
                RequestMatcher.decode($0, lists: lists, diagnostics: &diagnostics)
            } ?? .everything
        let name = config.object["name"]?.stringValue ?? ""
        var isShadow = false
        if let mode = config.string("mode", diagnostics: &diagnostics) {
            switch ModeForm.isShadow(mode) {
            case let shadow?: isShadow = shadow
            case nil:
                diagnostics.report(
                    config.pointer.appending("mode"),
                    "\"\(EchoedText.bounded(mode))\": expected \"enforce\" (the default: the handler decides) or \"shadow\" (recorded, never decides)"
                )
            }
        }
        guard let handlerType, let typeName,
            let handler = handlerType.build(name, config, &diagnostics)
        else { return nil }
        return ChainLink(name: name, type: typeName, matcher: matcher, handler: handler, isShadow: isShadow)
    }

    fileprivate func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first, MatchPath.isUnreserved(first),
            first != UInt8(ascii: "-"), first != UInt8(ascii: "."), first != UInt8(ascii: "_")
        else { return false }
        return name.utf8.allSatisfy { MatchPath.isUnreserved($0) && $0 != UInt8(ascii: "~") }
    }
}
