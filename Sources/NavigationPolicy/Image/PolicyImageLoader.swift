import JSONSupport

extension PolicyImage {
    /// A 32-byte digest of a byte range (the image checksum is BLAKE2b-256, the source
    /// revision SHA-256); the core has no crypto, the front ends pass libsodium's.
    public typealias Digest = @Sendable (UnsafeRawBufferPointer) -> [UInt8]

    /// Checks an image (header, checksum, every section's offsets and lengths, every table's
    /// order) and builds its policy; the tables are read in place from `image` from then on.
    ///
    /// `checksum` (BLAKE2b-256) nil skips the checksum: only for bytes whose integrity a verified signature
    /// already covers (the app's client, whose platform has no SHA-256 here); every offset,
    /// length and order is still checked.
    ///
    /// - Throws: ``PolicyImageError`` saying what is wrong and at which byte; nothing of a
    ///   refused image is used.
    public static func load(
        _ image: PolicyImageBytes, compiler: PolicyCompiler, checksum: Digest?
    ) throws(PolicyImageError) -> Loaded {
        let file = ImageReader(image.buffer)
        let header = try readHeader(file, checksum: checksum)
        let sections = try readSections(file, count: header.sectionCount)
        let base = try compileConfig(sections, compiler: compiler)
        var links = base.links
        var seen = Set<Int>()
        for section in sections where section.kind == .handlerTables {
            let (position, matcher) = try readHandlerTables(section.window, image: image, links: links)
            guard seen.insert(position).inserted else {
                throw PolicyImageError("handler \(position) has two table sections", at: section.window.base)
            }
            let link = links[position]
            links[position] = ChainLink(
                name: link.name, type: link.type, matcher: matcher, handler: link.handler, isShadow: link.isShadow)
        }
        let policy = CompiledPolicy(defaultVerdict: base.defaultVerdict, links: links, sections: base.sections)
        return Loaded(policy: policy, header: header, tableHandlers: seen.count)
    }

    /// The chain's JSON and the daemon's sections, merged into one document and compiled.
    private static func compileConfig(_ sections: [Section], compiler: PolicyCompiler) throws(PolicyImageError)
        -> CompiledPolicy
    {
        let configs = sections.filter { $0.kind == .config }
        let daemons = sections.filter { $0.kind == .daemonSections }
        guard configs.count == 1, daemons.count <= 1, let config = configs.first else {
            throw PolicyImageError("an image has exactly one config section and at most one daemon-sections section")
        }
        var document = try parseObject(config)
        if let daemon = daemons.first {
            for member in try parseObject(daemon).members {
                guard !chainKeys.containsSameUTF8(member.key), document[member.key] == nil else {
                    throw PolicyImageError("daemon section \"\(member.key)\" is repeated", at: daemon.window.base)
                }
                document.members.append(member)
            }
        }
        do {
            return try compiler.compile(.object(document))
        } catch {
            let issues = error.issues.map { $0.description }.joined(separator: "; ")
            throw PolicyImageError("the image's config section does not compile: \(issues)", at: config.window.base)
        }
    }

    private static func parseObject(_ section: Section) throws(PolicyImageError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser(maximumDepth: PolicyCompiler.maximumDepth).parse(section.window.bytes)
        } catch {
            throw PolicyImageError("a JSON section does not parse: \(error)", at: section.window.base)
        }
        guard case .object(let object) = value else {
            throw PolicyImageError("a JSON section is not an object", at: section.window.base)
        }
        return object
    }

    /// The image without its daemon sections (re-checksummed): what a bundle carries to apps,
    /// which get the chain and never the daemon's `server`, `intake` or `proxy` settings.
    ///
    /// Read where the array holds it, and returned as it is when there is nothing to strip (the
    /// image of a config without them is already what the layout writes): a 1,000,000-host
    /// image is 25 MiB, and its copies were most of what `navpolicyd bundle` held at its peak.
    public static func strippingDaemonSections(_ image: [UInt8], checksum: @escaping Digest) throws(PolicyImageError) -> [UInt8] {
        let read = image.withUnsafeBytes { buffer in
            Result { () throws(PolicyImageError) -> [(SectionKind, [UInt8])]? in
                let file = ImageReader(buffer)
                let header = try readHeader(file, checksum: checksum)
                let sections = try readSections(file, count: header.sectionCount)
                guard sections.contains(where: { $0.kind == .daemonSections }) else { return nil }
                return sections.filter { $0.kind != .daemonSections }.map { ($0.kind, Array($0.window.bytes)) }
            }
        }
        guard let kept = try read.get() else { return image }
        return assemble(kept, sourceDigest: Array(image[56..<88]), checksum: checksum)
    }

    private static func readHeader(_ file: ImageReader, checksum: Digest?) throws(PolicyImageError) -> Header {
        guard file.bytes.count >= headerLength else {
            throw PolicyImageError("truncated: \(file.bytes.count) bytes, shorter than the \(headerLength)-byte header")
        }
        guard hasMagic(file.bytes) else { throw PolicyImageError("not a compiled policy image (wrong magic)", at: 0) }
        let version = try file.u32(8, "format version")
        guard version == formatVersion else {
            throw PolicyImageError(
                "format version \(version) is not the one this build reads (\(formatVersion)); compile the config again",
                at: 8)
        }
        let flags = try file.u32(12, "flags")
        guard flags == 0 else { throw PolicyImageError("unknown flags \(flags)", at: 12) }
        let total = try file.u64(16, "total length")
        guard total == file.bytes.count else {
            throw PolicyImageError(
                total > file.bytes.count
                    ? "truncated: the header says \(total) bytes, the file has \(file.bytes.count)"
                    : "\(file.bytes.count - total) bytes past the \(total) the header says", at: 16)
        }
        if let checksum {
            let digest = checksum(UnsafeRawBufferPointer(rebasing: file.bytes[checkedFrom...]))
            guard digest.elementsEqual(file.bytes[checksumOffset..<checkedFrom]) else {
                throw PolicyImageError("checksum mismatch: the image is corrupt", at: checksumOffset)
            }
        }
        let sectionCount = try file.u32(88, "section count")
        return Header(
            formatVersion: version, totalLength: total, sourceRevision: PolicyRevision.of(sha256: file.bytes[56..<88]),
            sectionCount: sectionCount)
    }

    private struct Section {
        let kind: SectionKind
        let window: ImageReader
    }

    private static func readSections(_ file: ImageReader, count: Int) throws(PolicyImageError) -> [Section] {
        guard count <= (file.bytes.count - headerLength) / sectionEntryLength else {
            throw PolicyImageError("\(count) sections do not fit in the image", at: 88)
        }
        // After the guard: a u32 count times the entry length overflows a 32-bit `Int` (Wasm).
        let tableEnd = headerLength + count * sectionEntryLength
        var sections: [Section] = []
        for index in 0..<count {
            let entry = headerLength + index * sectionEntryLength
            let kindValue = try file.u32(entry, "section \(index) kind")
            guard let kind = SectionKind(rawValue: kindValue) else {
                throw PolicyImageError("section \(index) has unknown kind \(kindValue)", at: entry)
            }
            let offset = try file.u64(entry + 8, "section \(index) offset")
            let length = try file.u64(entry + 16, "section \(index) length")
            guard offset >= tableEnd else {
                throw PolicyImageError("section \(index) starts inside the header or section table", at: entry + 8)
            }
            sections.append(Section(kind: kind, window: try file.window(offset, length, "section \(index)")))
        }
        return sections
    }

    /// One handler's tables: which handler, its inline host entries' positions, and the tables.
    private static func readHandlerTables(
        _ section: ImageReader, image: PolicyImageBytes, links: [ChainLink]
    ) throws(PolicyImageError) -> (Int, RequestMatcher) {
        let position = try section.u32(0, "table handler position")
        guard position < links.count else {
            throw PolicyImageError("tables for handler \(position), the chain has \(links.count)", at: section.base)
        }
        let flags = try section.u32(4, "table flags")
        guard flags & ~HandlerTables.knownFlags == 0, flags != 0 else {
            throw PolicyImageError("unknown table flags \(flags)", at: section.base + 4)
        }
        let inlineCount = try section.u32(8, "inline host count")
        var cursor = 12
        var inline: [Int] = []
        guard inlineCount <= (section.bytes.count - cursor) / 4 else {
            throw PolicyImageError("inline host count \(inlineCount) runs past the section", at: section.base + 8)
        }
        for index in 0..<inlineCount { inline.append(try section.u32(cursor + index * 4, "inline host index")) }
        cursor += inlineCount * 4
        func nextTable() throws(PolicyImageError) -> SortedKeyTable {
            let length = try section.u32(cursor, "table length")
            let window = try section.window(cursor + 4, length, "table")
            cursor += 4 + length
            return try SortedKeyTable(image: image, window: window)
        }
        var names: MappedHostNames?
        var prefixes: MappedPathPrefixes?
        let matcher = links[position].matcher
        if flags & HandlerTables.hostsFlag != 0 {
            names = MappedHostNames(exact: try nextTable(), wildcardSuffixes: try nextTable())
            guard inline.count == matcher.entries.filter({ $0.field == .hosts }).count else {
                throw PolicyImageError("the inline host positions do not match the handler's hosts", at: section.base + 8)
            }
        }
        if flags & HandlerTables.pathPrefixesFlag != 0 {
            guard !matcher.paths.hasPrefixes else {
                throw PolicyImageError("handler \(position) has pathPrefixes both inline and in a table", at: section.base)
            }
            prefixes = MappedPathPrefixes(try nextTable())
        }
        guard cursor == section.bytes.count else {
            throw PolicyImageError("\(section.bytes.count - cursor) unused bytes after the tables", at: section.base + cursor)
        }
        return (position, matcher.attachingImageTables(hosts: names, inlineHostIndices: inline, pathPrefixes: prefixes))
    }
}
