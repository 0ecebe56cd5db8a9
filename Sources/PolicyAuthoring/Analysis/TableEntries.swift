/// The host and path entries the analysis cuts into regions, read from the sets a matcher
/// decides with rather than from ``RequestMatcher/entries`` (the list explain and lint show).
///
/// A compiled image keeps large `hosts` and `pathPrefixes` lists in tables (``MappedHostNames``,
/// ``MappedPathPrefixes``) that `entries` does not list: an analysis reading `entries` saw such
/// a handler as matching no host (or every path) and called it unreachable, or two chains
/// equivalent, when they were not (outside attack 7, F1). Reading the same sets that
/// ``RequestMatcher/firstMismatch(_:)`` consults makes the analysis of an image the analysis of
/// its JSON source by construction: an entry the matcher decides with cannot be left out.
extension RequestMatcher {
    /// Every condition of the matcher as entries: hosts and paths from its sets and image
    /// tables, every other field (schemes, methods, urlPatterns, …) from ``entries``.
    var analysisEntries: [MatchEntry] {
        let fromSets: Set<Field> = [.hosts, .paths, .pathPrefixes, .pathPatterns]
        var result = entries.filter { !fromSets.contains($0.field) }
        func add(_ field: Field, _ test: MatchEntry.Test, _ written: String) {
            result.append(MatchEntry(field: field, index: result.count, written: written, test: test))
        }
        if let hosts {
            for host in hosts.exact { add(.hosts, .host(String(host)), String(host)) }
            for suffix in hosts.wildcardSuffixes { add(.hosts, .hostWildcard(String(suffix)), "*." + suffix) }
            if let mapped = hosts.mapped {
                for position in 0..<mapped.exact.count {
                    let key = mapped.exact.keyText(position)
                    add(.hosts, .host(key), key)
                }
                for position in 0..<mapped.wildcardSuffixes.count {
                    let key = mapped.wildcardSuffixes.keyText(position)
                    add(.hosts, .hostWildcard(key), "*." + key)
                }
            }
            for addressClass in hosts.classes { add(.hosts, .hostClass(addressClass), addressClass.entry) }
            // A class's ranges are in `ranges` too; the class term already stands for them.
            let classRanges = Set(hosts.classes.flatMap(\.ranges))
            for range in hosts.ranges where !classRanges.contains(range) {
                add(.hosts, .hostRange(range), range.description)
            }
        }
        for path in paths.exact { add(.paths, .path(String(path)), String(path)) }
        for prefix in paths.prefixes { add(.pathPrefixes, .prefix(String(prefix)), String(prefix)) }
        if let table = paths.mappedPrefixes?.table {
            for position in 0..<table.count {
                let key = table.keyText(position)
                add(.pathPrefixes, .prefix(key), key)
            }
        }
        for pattern in paths.patterns { add(.pathPatterns, .pattern(pattern), pattern.text) }
        return result
    }
}
