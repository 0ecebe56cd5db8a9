/// The earlier handlers that might cover a later one, so the unreachable-handler lint compares
/// each handler with a few candidates instead of every earlier handler (quadratic: a
/// 100,000-handler chain took minutes in `validate`).
///
/// Only a pre-filter: the caller still runs `Superset.covers` on every candidate, in chain
/// order, so the warnings are the same as a full scan's. A handler is left out only when
/// `covers` is certain to answer `.no` for it:
/// - an outer with hosts covers nothing without hosts, and covers an inner with hosts only if
///   it lists the inner's first host or a parent domain of it (exact or as a wildcard), or
///   lists ranges or classes and that first host is an address or a `localhost` name;
/// - an outer with exact paths covers only inners whose first exact path is one of them, and
///   an outer with prefixes (and no exact paths) only inners whose first exact path, first
///   prefix or first pattern's index key has one of them as a leading sub-path (case folded
///   or not, since the outer folds or not).
/// Every other handler (no hosts and no paths, pattern-only paths, an inner with an empty but
/// present host set) stays a candidate.
struct CoverCandidates {
    private enum HostKey: Hashable {
        /// The outer has no host condition.
        case anyHost
        /// The outer has a host condition with no hosts in it.
        case emptyHostSet
        /// The outer lists ranges or classes: it may cover inners whose first host is an
        /// address or a `localhost` name.
        case addresses
        case host(Substring)
    }

    private enum PathKey: Hashable {
        /// The outer has no path condition.
        case anyPath
        /// The outer's path condition is patterns only: not indexed.
        case unindexed
        case path(Substring)
    }

    /// Chain positions, by host key then path key, ascending (positions are added in order).
    private var positions: [HostKey: [PathKey: [Int]]] = [:]
    /// Every position added, for the rare inner no key narrows.
    private var all: [Int] = []

    /// Adds a (non-shadow) handler that may cover later ones.
    mutating func add(_ matcher: RequestMatcher, at position: Int) {
        all.append(position)
        let paths = matcher.paths
        let pathKeys: [PathKey]
        if paths.hasExact {
            pathKeys = paths.exact.map { .path($0) }
        } else if paths.hasPrefixes {
            pathKeys = paths.prefixes.map { .path($0) }
        } else if paths.hasPatterns {
            pathKeys = [.unindexed]
        } else {
            pathKeys = [.anyPath]
        }
        var hostKeys: [HostKey]
        if let hosts = matcher.hosts {
            hostKeys = hosts.exact.map { .host($0) } + hosts.wildcardSuffixes.map { .host($0) }
            if hosts.hasAddressEntries { hostKeys.append(.addresses) }
            if hostKeys.isEmpty { hostKeys = [.emptyHostSet] }
        } else {
            hostKeys = [.anyHost]
        }
        for hostKey in hostKeys {
            for pathKey in pathKeys { positions[hostKey, default: [:]][pathKey, default: []].append(position) }
        }
    }

    /// The positions added so far that might cover `inner`, ascending, without repeats.
    func candidates(for inner: RequestMatcher) -> [Int] {
        var hostKeys: [HostKey] = [.anyHost]
        if let hosts = inner.hosts {
            guard let first = hosts.exact.first ?? hosts.wildcardSuffixes.first else { return all }
            hostKeys.append(.emptyHostSet)
            hostKeys.append(.host(first))
            // Classified only when some outer lists addresses: parsing every inner's host
            // would cost a 100,000-handler lint a host parse per handler for nothing.
            if positions[.addresses] != nil, HostAddress(matchForm: first).isAddressOrLocalhost {
                hostKeys.append(.addresses)
            }
            _ = MatchHost.anyParentDomain(of: first) { parent in
                hostKeys.append(.host(parent))
                return false
            }
        }
        var pathKeys: [PathKey] = [.anyPath, .unindexed]
        let paths = inner.paths
        let representative: Substring?
        if let exact = paths.exact.first {
            representative = exact
        } else if let prefix = paths.prefixes.first {
            representative = prefix
        } else {
            representative = paths.patterns.first.map { Substring($0.indexKey) }
        }
        if let representative {
            var seen: Set<Substring> = []
            for form in [representative, Substring(asciiLowercased(String(representative)))] {
                _ = MatchPath.anyLeadingSubpath(of: form) { subpath in
                    if seen.insert(subpath).inserted { pathKeys.append(.path(subpath)) }
                    return false
                }
            }
        }
        var found: [Int] = []
        for hostKey in hostKeys {
            guard let byPath = positions[hostKey] else { continue }
            for pathKey in pathKeys {
                if let list = byPath[pathKey] { found.append(contentsOf: list) }
            }
        }
        // Keys can share a handler (an outer listing a host and its parent): sort and drop repeats.
        found.sort()
        var unique: [Int] = []
        unique.reserveCapacity(found.count)
        for position in found where unique.last != position { unique.append(position) }
        return unique
    }
}
