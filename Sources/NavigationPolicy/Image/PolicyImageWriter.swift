import JSONSupport

extension PolicyImage {
    /// Compiles config bytes into an image: the config is checked as every command checks it
    /// (the same diagnostics), then each handler's `hosts` names and `pathPrefixes` of at least
    /// `tableThreshold` entries become sorted tables and the rest stays JSON source.
    ///
    /// - Throws: ``ConfigError`` with the config's issues, exactly as loading it would.
    public static func compile(
        config bytes: [UInt8], compiler: PolicyCompiler, sha256: Digest, checksum: Digest,
        tableThreshold: Int = defaultTableThreshold
    ) throws(ConfigError) -> [UInt8] {
        _ = try compiler.compile(bytes)
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: PolicyCompiler.maximumDepth).parse(bytes)
        } catch {
            throw ConfigError(issues: [ConfigIssue(pointer: .root, message: "\(error)")])
        }
        guard case .object(var root) = document else {
            throw ConfigError(issues: [ConfigIssue(pointer: .root, message: "expected an object")])
        }
        var tableSections: [[UInt8]] = []
        if case .array(var handlers) = root["handlers"] {
            for position in handlers.indices {
                guard case .object(var handler) = handlers[position], case .object(var match) = handler["match"] else {
                    continue
                }
                let section = try HandlerTables.split(
                    &match, position: position, threshold: tableThreshold)
                guard let section else { continue }
                tableSections.append(section)
                handler.set("match", .object(match))
                handlers[position] = .object(handler)
            }
            root.set("handlers", .array(handlers))
        }
        var chain = JSONObject()
        var daemon = JSONObject()
        for member in root.members {
            if chainKeys.contains(member.key) { chain.members.append(member) } else { daemon.members.append(member) }
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

    /// The config keys the chain is: what an app's bundle carries.
    static let chainKeys = ["defaultDecision", "handlers"]

    /// Header, section table, sections; the checksum is filled in last, over the rest.
    static func assemble(_ sections: [(SectionKind, [UInt8])], sourceDigest: [UInt8], checksum: Digest) -> [UInt8] {
        var offset = headerLength + sections.count * sectionEntryLength
        var image = ImageWriter()
        image.append(magic)
        image.u32(formatVersion)
        image.u32(0)
        let total = offset + sections.reduce(0) { $0 + $1.1.count }
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
        var result = image.bytes
        let digest = result.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[checkedFrom...])) }
        result.replaceSubrange(checksumOffset..<checkedFrom, with: digest.prefix(32))
        return result
    }
}

/// Moves one handler's large lists out of its `match` object into a table section.
enum HandlerTables {
    /// The image's part of each form: how a handler-tables section (``split(_:position:threshold:)``,
    /// and the loader's `readHandlerTables`) stores it. MatchFormTests hold it to the forms'
    /// descriptions (``MatchFormDescription/image``).
    static func encoding(_ form: MatchForm) -> MatchFormDescription.ImageEncoding {
        switch form {
        case .hostNames, .hostSuffixes: .sortedKeyTable(flag: hostsFlag)
        case .hostRanges, .hostClasses: .jsonBesideTable
        case .pathPrefixes: .sortedKeyTable(flag: pathPrefixesFlag)
        case .schemes, .paths, .pathPatterns, .urlPatterns, .methods, .navigationTypes, .targetFrames, .caseSensitive,
            .mode, .defaultDecision, .action, .location:
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

    /// The section for `match` (changed to keep only what stays JSON), or nil when no list is large.
    static func split(_ match: inout JSONObject, position: Int, threshold: Int) throws(ConfigError) -> [UInt8]? {
        let caseSensitive = match["caseSensitive"]?.boolValue ?? false
        var flags = 0
        var inlineIndices: [Int] = []
        var tables: [[UInt8]] = []
        if case .array(let hosts) = match["hosts"], hosts.count >= threshold {
            var exact: [SortedKeyEntry] = []
            var wildcards: [SortedKeyEntry] = []
            var inline: [JSONValue] = []
            for (index, value) in hosts.enumerated() {
                guard let written = value.stringValue else { continue }
                switch HostPattern.parse(written) {
                case .success(.exact(let host)):
                    exact.append(
                        SortedKeyEntry(key: Array(host.utf8), configIndex: index, written: written == host ? nil : written))
                case .success(.wildcard(let suffix)):
                    wildcards.append(
                        SortedKeyEntry(
                            key: Array(suffix.utf8), configIndex: index, written: written == "*." + suffix ? nil : written))
                case .success(.range), .success(.addressClass):
                    inline.append(value)
                    inlineIndices.append(index)
                case .failure(let error):
                    throw ConfigError(issues: [ConfigIssue(pointer: .root, message: "\"\(written)\": \(error.reason)")])
                }
            }
            flags |= hostsFlag
            tables.append(SortedKeyTable.encode(exact))
            tables.append(SortedKeyTable.encode(wildcards))
            // An empty list is a config error: a handler with only names keeps no `hosts` key,
            // and the table makes its (non-empty) host condition at load.
            if inline.isEmpty { match.remove("hosts") } else { match.set("hosts", .array(inline)) }
        }
        if case .array(let prefixes) = match["pathPrefixes"], prefixes.count >= threshold {
            var entries: [SortedKeyEntry] = []
            for (index, value) in prefixes.enumerated() {
                guard let written = value.stringValue else { continue }
                switch RequestMatcher.configPath(written) {
                case .success(let path):
                    let key = CaseSensitiveForm.key(path, caseSensitive: caseSensitive)
                    entries.append(
                        SortedKeyEntry(key: Array(key.utf8), configIndex: index, written: written == key ? nil : written))
                case .failure(let error):
                    throw ConfigError(issues: [ConfigIssue(pointer: .root, message: "\"\(written)\": \(error.reason)")])
                }
            }
            flags |= pathPrefixesFlag
            tables.append(SortedKeyTable.encode(entries))
            match.remove("pathPrefixes")
        }
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
}

extension JSONObject {
    /// Replaces the member named `key` in place (keeping member order), or appends it.
    fileprivate mutating func set(_ key: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            append(key, value)
        }
    }

    fileprivate mutating func remove(_ key: String) { members.removeAll { $0.key == key } }
}
