/// Finds the handlers that could match a request without scanning the whole chain.
///
/// Each handler is filed under the most selective field of its `match` block: its hosts
/// (exact or `*.` suffix, and ranges or classes in one list consulted only for address and
/// `localhost` hosts), else its exact paths, else its path prefixes, else the
/// whole-segment part of each path pattern's literal prefix (``PathPattern/indexKey``,
/// looked up like a prefix); handlers with none
/// of these are always candidates. A handler can only match a request whose host or path
/// is one of the keys it is filed under, so looking those keys up yields a superset of the
/// matching handlers; the chain then checks the full match of each candidate in position
/// order, which keeps first-match semantics identical to a linear scan.
struct ChainIndex: Sendable {
    // Substring keys: a request's parent domains and leading sub-paths are looked up as
    // slices of its host and path, with no string allocated per lookup.
    private var byHost: [Substring: [Int32]] = [:]
    private var byWildcardSuffix: [Substring: [Int32]] = [:]
    private var byPath: [Substring: [Int32]] = [:]
    private var byPathPrefix: [Substring: [Int32]] = [:]
    /// Path patterns by the leading sub-path every path they match has; kept apart from
    /// `byPathPrefix` so policies without patterns do no extra lookups.
    private var byPatternPrefix: [Substring: [Int32]] = [:]
    /// Handlers whose hosts list ranges or classes (`10.0.0.0/8`, `@loopback`), in position
    /// order: candidates only for requests whose host is an address or a `localhost` name.
    private var byAddress: [Int32] = []
    /// Handlers without host or path conditions, in position order.
    private var unindexed: [Int32] = []

    init(links: [ChainLink]) {
        reserveCapacity(links)
        for (position, link) in links.enumerated() {
            let position = Int32(position)
            let matcher = link.matcher
            if let hosts = matcher.hosts {
                for host in hosts.exact { byHost[host, default: []].append(position) }
                for suffix in hosts.wildcardSuffixes { byWildcardSuffix[suffix, default: []].append(position) }
                if hosts.hasAddressEntries { byAddress.append(position) }
            } else if matcher.paths.hasExact {
                // Keys are folded even for case-sensitive handlers: the full match check that
                // follows applies the exact case rule.
                for path in matcher.paths.exact { byPath[asciiLowercased(path), default: []].append(position) }
            } else if matcher.paths.hasPrefixes {
                for prefix in matcher.paths.prefixes {
                    byPathPrefix[asciiLowercased(prefix), default: []].append(position)
                }
            } else if matcher.paths.hasPatterns {
                for pattern in matcher.paths.patterns {
                    // A pattern may repeat a key; one entry per handler keeps candidate lists short.
                    let key = Substring(pattern.indexKey)
                    if byPatternPrefix[key]?.last != position { byPatternPrefix[key, default: []].append(position) }
                }
            } else {
                unindexed.append(position)
            }
        }
    }

    /// Sizes each dictionary for the keys it will get (counting a key repeated across handlers
    /// once per handler, a small overestimate): growing them one rehash at a time cost ~0.08G
    /// instructions at 100k handlers, about a third of building the index.
    private mutating func reserveCapacity(_ links: [ChainLink]) {
        var hosts = 0
        var wildcardSuffixes = 0
        var paths = 0
        var pathPrefixes = 0
        var patterns = 0
        for link in links {
            let matcher = link.matcher
            if let set = matcher.hosts {
                hosts += set.exact.count
                wildcardSuffixes += set.wildcardSuffixes.count
            } else if matcher.paths.hasExact {
                paths += matcher.paths.exact.count
            } else if matcher.paths.hasPrefixes {
                pathPrefixes += matcher.paths.prefixes.count
            } else if matcher.paths.hasPatterns {
                patterns += matcher.paths.patterns.count
            }
        }
        byHost.reserveCapacity(hosts)
        byWildcardSuffix.reserveCapacity(wildcardSuffixes)
        byPath.reserveCapacity(paths)
        byPathPrefix.reserveCapacity(pathPrefixes)
        byPatternPrefix.reserveCapacity(patterns)
    }

    /// Positions of the handlers that may match `request`, ascending, possibly with repeats.
    func candidates(for request: CanonicalRequest) -> [Int32] {
        var lists: [[Int32]] = []
        if !unindexed.isEmpty { lists.append(unindexed) }
        if let host = request.matchHostForm {
            if let list = byHost[host] { lists.append(list) }
            if !byAddress.isEmpty, HostAddress.mayMatch(host, of: request.url) { lists.append(byAddress) }
            if !byWildcardSuffix.isEmpty {
                _ = MatchHost.anyParentDomain(of: host) { parent in
                    if let list = byWildcardSuffix[parent] { lists.append(list) }
                    return false
                }
            }
        }
        let folded = request.matchPath.foldedForm
        if let list = byPath[folded] { lists.append(list) }
        if !byPathPrefix.isEmpty, folded.utf8.first == UInt8(ascii: "/") {
            _ = MatchPath.anyLeadingSubpath(of: folded) { prefix in
                if let list = byPathPrefix[prefix] { lists.append(list) }
                return false
            }
        }
        if !byPatternPrefix.isEmpty, folded.utf8.first == UInt8(ascii: "/") {
            _ = MatchPath.anyLeadingSubpath(of: folded) { prefix in
                if let list = byPatternPrefix[prefix] { lists.append(list) }
                return false
            }
        }
        switch lists.count {
        case 0: return []
        case 1: return lists[0]
        default: return lists.flatMap { $0 }.sorted()
        }
    }
}
