/// A handler's exact hosts and `*.` suffixes held in image tables rather than hashed sets;
/// a class, so a ``HostSet`` grows by one reference, not by two tables, in every matcher.
package final class MappedHostNames: Sendable {
    package let exact: SortedKeyTable
    /// Suffixes without the `*.`, as ``HostSet/wildcardSuffixes`` holds them.
    package let wildcardSuffixes: SortedKeyTable

    init(exact: SortedKeyTable, wildcardSuffixes: SortedKeyTable) {
        self.exact = exact
        self.wildcardSuffixes = wildcardSuffixes
    }

    /// The first-listed entry that `host` meets (exact, or a wildcard over one of its parent
    /// domains), for explain: the one a scan of the JSON list in order would name.
    func firstEntry(for host: Substring) -> MatchEntry? {
        var best: MatchEntry?
        if let position = exact.position(of: host) {
            let key = exact.keyText(position)
            best = MatchEntry(
                field: .hosts, index: exact.configIndex(position), written: exact.writtenText(position) ?? key,
                test: .host(key))
        }
        _ = MatchHost.anyParentDomain(of: host) { parent in
            if let position = wildcardSuffixes.position(of: parent), wildcardSuffixes.configIndex(position) < best?.index ?? .max
            {
                let key = wildcardSuffixes.keyText(position)
                best = MatchEntry(
                    field: .hosts, index: wildcardSuffixes.configIndex(position),
                    written: wildcardSuffixes.writtenText(position) ?? "*." + key, test: .hostWildcard(key))
            }
            return false
        }
        return best
    }
}

/// A handler's `pathPrefixes` held in an image table (keys in the matcher's compare form).
package final class MappedPathPrefixes: Sendable {
    package let table: SortedKeyTable

    init(_ table: SortedKeyTable) {
        self.table = table
    }

    /// Whether a key equals `path` (compare form) or one of its leading whole-segment parts.
    func covers(_ path: Substring) -> Bool {
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        return MatchPath.anyLeadingSubpath(of: path) { table.contains($0) }
    }

    /// The first-listed prefix covering `path`, for explain.
    func firstEntry(for path: Substring) -> MatchEntry? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        var best: MatchEntry?
        _ = MatchPath.anyLeadingSubpath(of: path) { part in
            if let position = table.position(of: part), table.configIndex(position) < best?.index ?? .max {
                let key = table.keyText(position)
                best = MatchEntry(
                    field: .pathPrefixes, index: table.configIndex(position), written: table.writtenText(position) ?? key,
                    test: .prefix(key))
            }
            return false
        }
        return best
    }
}
