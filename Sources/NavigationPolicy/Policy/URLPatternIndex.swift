/// The chain index's part for handlers filed under `match.urlPatterns`: each entry under its
/// host keys and, within them, its path prefix (``URLPatternIndexKeys``), so a request is a
/// candidate only for entries whose literal host and leading path it has.
///
/// A request is looked up with the host and path the entries are matched on in its reading
/// (``URLPattern/matchResult(_:)``: the match forms, or the standard's own for the
/// URLPattern-standard readings, a decoded path's included: ``CanonicalRequest/standardPathname``),
/// so each reading finds every entry that can match it there.
struct URLPatternIndex: Sendable {
    /// Positions filed under one host key: by path prefix, or for any path.
    private struct ByPath: Sendable {
        var anyPath: [Int32] = []
        var byPrefix = SegmentTrie<[Int32]>()

        mutating func file(_ prefix: String?, _ position: Int32) {
            guard let prefix else {
                if anyPath.last != position { anyPath.append(position) }
                return
            }
            byPrefix.update(Substring(prefix), initial: []) { list in
                if list.last != position { list.append(position) }
            }
        }

        func collect(_ path: Substring, into lists: inout [[Int32]]) {
            if !anyPath.isEmpty { lists.append(anyPath) }
            if !byPrefix.isEmpty {
                byPrefix.anyLeadingSubpath(of: path) { list in
                    lists.append(list)
                    return false
                }
            }
        }
    }

    private var byHost: [Substring: ByPath] = [:]
    private var bySuffix: [Substring: ByPath] = [:]
    /// Byte lengths of `bySuffix`'s keys: only parent domains of those lengths are hashed
    /// (as ``ChainIndex`` does for `*.` hosts).
    private var suffixLengths: Set<Int> = []
    private var anyHost = ByPath()
    /// Every handler filed here, in position order: the candidates for a request whose host or
    /// path has a non-ASCII byte, where the keys' ASCII folding would not be sound.
    private var every: [Int32] = []

    var isEmpty: Bool { every.isEmpty }

    /// Files each of `patterns` (of the handler at `position`, which must ascend across calls).
    mutating func file(_ patterns: [URLPattern], at position: Int32) {
        every.append(position)
        for pattern in patterns {
            fileKeys(pattern.indexKeys, at: position)
            if let matchForm = pattern.matchFormIndexKeys { fileKeys(matchForm, at: position) }
        }
    }

    /// Files the handler at `position` under one set of keys.
    private mutating func fileKeys(_ keys: URLPatternIndexKeys, at position: Int32) {
        if keys.anyHost { anyHost.file(keys.pathPrefix, position) }
        for host in keys.exactHosts { byHost[Substring(host), default: ByPath()].file(keys.pathPrefix, position) }
        for suffix in keys.hostSuffixes {
            bySuffix[Substring(suffix), default: ByPath()].file(keys.pathPrefix, position)
            suffixLengths.insert(suffix.utf8.count)
        }
    }

    /// Adds the position lists whose handlers may match `request` (each ascending) to `lists`.
    func collect(_ request: CanonicalRequest, into lists: inout [[Int32]]) {
        let host = request.readsURLAsStandard ? request.url.hostname : String(request.matchHostForm ?? "")
        let path = request.readsURLAsStandard ? request.standardPathname : request.matchPath.text
        guard URLPatternIndexKeys.isASCII(host), URLPatternIndexKeys.isASCII(path) else {
            lists.append(every)
            return
        }
        let foldedHost = Substring(asciiLowercased(host))
        let foldedPath = Substring(asciiLowercased(path))
        anyHost.collect(foldedPath, into: &lists)
        byHost[foldedHost]?.collect(foldedPath, into: &lists)
        guard !bySuffix.isEmpty else { return }
        _ = MatchHost.anyParentDomain(of: foldedHost) { parent in
            if suffixLengths.contains(parent.utf8.count), let paths = bySuffix[parent] {
                paths.collect(foldedPath, into: &lists)
            }
            return false
        }
    }
}
