import JSONSupport

extension PolicyImage {
    /// Compiles config bytes into an image: the config is checked as every command checks it
    /// (the same diagnostics), then each handler's `hosts` names and `pathPrefixes` of at least
    /// `tableThreshold` entries become sorted tables and the rest stays JSON source.
    ///
    /// The config is read a second time for the image as the compiler reads it: `handlers` one
    /// at a time, their `hosts` and `pathPrefixes` into flat columns. Parsed into a tree, a
    /// 1,000,000-host list was a million nodes, strings and keys: `compile` took 1.19 s and
    /// 320 MB for it, 0.86 s and 172 MB now (docs/performance.md, issue 42).
    ///
    /// - Throws: ``ConfigError`` with the config's issues, exactly as loading it would.
    public static func compile(
        config bytes: [UInt8], compiler: PolicyCompiler, sha256: Digest, checksum: Digest,
        tableThreshold: Int = defaultTableThreshold
    ) throws(ConfigError) -> [UInt8] {
        _ = try compiler.compile(bytes)
        let read: Result<(root: JSONObject, tableSections: [[UInt8]]), ConfigError>
        do {
            read = try readSplittingTables(bytes, compiler: compiler, tableThreshold: tableThreshold)
        } catch {
            throw ConfigError(issues: [ConfigIssue(pointer: .root, message: error.description)])
        }
        let (root, tableSections) = try read.get()
        var chain = JSONObject()
        var daemon = JSONObject()
        for member in root.members {
            if chainKeys.containsSameUTF8(member.key) { chain.members.append(member) } else { daemon.members.append(member) }
        }
        var json = JSONWriter(reservingCapacity: bytes.count / 4)
        json.write(.object(chain))
        var sections: [(SectionKind, [UInt8])] = [(.config, json.bytes)]
        if !daemon.members.isEmpty {
            var daemonJSON = JSONWriter()
            daemonJSON.write(.object(daemon))
            sections.append((.daemonSections, daemonJSON.bytes))
        }
        sections += tableSections.map { (.handlerTables, $0) }
        let sourceDigest = bytes.withUnsafeBytes { sha256($0) }
        return assemble(sections, sourceDigest: sourceDigest, checksum: checksum)
    }

    /// The config's members in order, each large list of a handler taken out into its table
    /// section. A JSON error is thrown and a table's error returned, each as its own type (one
    /// `do` catching both would hold `any Error`, which the Embedded Swift build has not).
    private static func readSplittingTables(_ bytes: [UInt8], compiler: PolicyCompiler, tableThreshold: Int)
        throws(JSONParseError) -> Result<(root: JSONObject, tableSections: [[UInt8]]), ConfigError>
    {
        var root = JSONObject()
        var tableSections: [[UInt8]] = []
        var reader = try JSONStreamReader(bytes, maximumDepth: PolicyCompiler.maximumDepth)
        guard reader.nextIsObject else {
            return .failure(ConfigError(issues: [ConfigIssue(pointer: .root, message: "expected an object")]))
        }
        try reader.beginObject()
        while let key = try reader.nextMemberKey() {
            guard key.hasSameUTF8(as: "handlers"), root["handlers"] == nil, reader.nextIsArray else {
                root.append(key, try reader.readValue())
                continue
            }
            var handlers: [JSONValue] = []
            try reader.beginArray()
            while try reader.nextElement() {
                let (entry, streamed) = try compiler.readHandler(&reader)
                var handler = entry
                let section: [UInt8]?
                do {
                    section = try HandlerTables.split(
                        &handler, streamed: streamed, position: handlers.count, threshold: tableThreshold)
                } catch {
                    return .failure(error)
                }
                if let section { tableSections.append(section) }
                handlers.append(handler)
            }
            root.append(key, .array(handlers))
        }
        try reader.finish()
        return .success((root, tableSections))
    }

    /// The config keys the chain is: what an app's bundle carries.
    static let chainKeys = ["defaultDecision", "handlers"]

    /// Header, section table, sections; the checksum is filled in last, over the rest.
    static func assemble(_ sections: [(SectionKind, [UInt8])], sourceDigest: [UInt8], checksum: Digest) -> [UInt8] {
        var offset = headerLength + sections.count * sectionEntryLength
        var image = ImageWriter()
        let total = offset + sections.reduce(0) { $0 + $1.1.count }
        // One allocation of the final size: grown by doubling, a 25 MiB image passed through
        // 32 and 64 MiB buffers.
        image.bytes.reserveCapacity(total)
        image.append(magic)
        image.u32(formatVersion)
        image.u32(0)
        image.u64(total)
        image.append([UInt8](repeating: 0, count: 32))
        image.append(sourceDigest.prefix(32))
        image.u32(sections.count)
        image.u32(0)
        for (kind, bytes) in sections {
            image.u32(kind.rawValue)
            image.u32(0)
            image.u64(offset)
            image.u64(bytes.count)
            offset += bytes.count
        }
        for (_, bytes) in sections { image.append(bytes) }
        let digest = image.bytes.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[checkedFrom...])) }
        image.bytes.replaceSubrange(checksumOffset..<checkedFrom, with: digest.prefix(32))
        return image.bytes
    }
}

/// Moves one handler's large lists out of its `match` object into a table section.
enum HandlerTables {
    /// The image's part of each form: how a handler-tables section (``split(_:streamed:position:threshold:)``,
    /// and the loader's `readHandlerTables`) stores it. MatchFormTests hold it to the forms'
    /// descriptions (``MatchFormDescription/image``).
    static func encoding(_ form: MatchForm) -> MatchFormDescription.ImageEncoding {
        switch form {
        case .hostNames, .hostSuffixes: .sortedKeyTable(flag: hostsFlag)
        case .hostRanges, .hostClasses: .jsonBesideTable
        case .pathPrefixes: .sortedKeyTable(flag: pathPrefixesFlag)
        case .schemes, .paths, .pathPatterns, .urlPatterns, .methods, .navigationTypes, .targetFrames, .caseSensitive,
            .mode, .defaultDecision, .action, .location, .response:
            .json
        }
    }

    /// A section's flag bits: the `hosts` names and suffixes tables, the `pathPrefixes` table.
    static let hostsFlag = 1
    static let pathPrefixesFlag = 2
    /// Every flag a form's table sets: any other bit is refused at load.
    static let knownFlags = MatchForm.all.reduce(0) { flags, form in
        if case .sortedKeyTable(let flag) = encoding(form) { flags | flag } else { flags }
    }

    /// The section for `handler` (its `match` changed to keep only what stays JSON: the lists
    /// below `threshold` written back as arrays), or nil when no list is large. `streamed` holds
    /// the `hosts` and `pathPrefixes` lists ``PolicyCompiler`` read into columns, which stand in
    /// `match` as empty arrays.
    static func split(_ handler: inout JSONValue, streamed: StreamedMatchLists?, position: Int, threshold: Int)
        throws(ConfigError) -> [UInt8]?
    {
        guard case .object(var handlerObject) = handler, case .object(var match) = handlerObject["match"] else {
            return nil
        }
        let caseSensitive = match["caseSensitive"]?.boolValue ?? false
        var flags = 0
        var inlineIndices: [Int] = []
        var tables: [[UInt8]] = []
        if let hosts = list("hosts", of: match, streamed: streamed) {
            if hosts.count >= threshold {
                var builder = HostTableBuilder(reservingCapacity: hosts.count)
                var inline: [JSONValue] = []
                var failure: ConfigError?
                hosts.forEachBytes { index, bytes in
                    guard failure == nil, !builder.addPlain(bytes, configIndex: index) else { return }
                    let written = String(decoding: bytes, as: UTF8.self)
                    switch HostPattern.parse(written) {
                    case .success(let parsed):
                        if !builder.add(parsed, written: written, configIndex: index) {
                            inline.append(.string(written))
                            inlineIndices.append(index)
                        }
                    case .failure(let error):
                        failure = ConfigError(issues: [ConfigIssue(pointer: .root, message: "\"\(written)\": \(error.reason)")])
                    }
                }
                if let failure { throw failure }
                flags |= hostsFlag
                tables.append(builder.exact.encode())
                tables.append(builder.wildcards.encode())
                // An empty list is a config error: a handler with only names keeps no `hosts` key,
                // and the table makes its (non-empty) host condition at load.
                if inline.isEmpty { match.remove("hosts") } else { match.set("hosts", .array(inline)) }
            } else {
                match.set("hosts", hosts.jsonArray)
            }
        }
        if let prefixes = list("pathPrefixes", of: match, streamed: streamed) {
            if prefixes.count >= threshold {
                var builder = SortedKeyTableBuilder(reservingCapacity: prefixes.count, bytesPerKey: 24)
                var failure: ConfigError?
                prefixes.forEachBytes { index, bytes in
                    guard failure == nil else { return }
                    let written = String(decoding: bytes, as: UTF8.self)
                    switch RequestMatcher.configPath(written) {
                    case .success(let path):
                        let key = CaseSensitiveForm.key(path, caseSensitive: caseSensitive)
                        builder.add(key.utf8, configIndex: index, written: written == key ? nil : written)
                    case .failure(let error):
                        failure = ConfigError(issues: [ConfigIssue(pointer: .root, message: "\"\(written)\": \(error.reason)")])
                    }
                }
                if let failure { throw failure }
                flags |= pathPrefixesFlag
                tables.append(builder.encode())
                match.remove("pathPrefixes")
            } else {
                match.set("pathPrefixes", prefixes.jsonArray)
            }
        }
        handlerObject.set("match", .object(match))
        handler = .object(handlerObject)
        guard flags != 0 else { return nil }
        var section = ImageWriter()
        section.u32(position)
        section.u32(flags)
        section.u32(inlineIndices.count)
        for index in inlineIndices { section.u32(index) }
        for table in tables {
            section.u32(table.count)
            section.append(table)
        }
        return section.bytes
    }

    /// The list under `key`: its streamed column, else (a list the compiler did not stream,
    /// which a config that compiled does not have) the array in `match` as one.
    private static func list(_ key: String, of match: JSONObject, streamed: StreamedMatchLists?) -> ConfigStringColumn? {
        if let column = streamed?[key] { return column }
        guard case .array(let elements) = match[key] else { return nil }
        var column = ConfigStringColumn()
        for element in elements { column.append(element) }
        return column
    }
}

extension ConfigStringColumn {
    /// The column as the JSON array of strings it was read from (a config that compiled holds
    /// only strings in these lists).
    fileprivate var jsonArray: JSONValue {
        var elements: [JSONValue] = []
        elements.reserveCapacity(count)
        forEachBytes { _, bytes in elements.append(.string(String(decoding: bytes, as: UTF8.self))) }
        return .array(elements)
    }
}

extension JSONObject {
    /// Replaces the member named `key` in place (keeping member order), or appends it.
    fileprivate mutating func set(_ key: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key.hasSameUTF8(as: key) }) {
            members[index].value = value
        } else {
            append(key, value)
        }
    }

    fileprivate mutating func remove(_ key: String) { members.removeAll { $0.key.hasSameUTF8(as: key) } }
}
