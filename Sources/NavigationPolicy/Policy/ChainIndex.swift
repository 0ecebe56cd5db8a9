/// Finds the handlers that could match a request without scanning the whole chain.
///
/// Each handler is filed under the most selective field of its `match` block: its hosts
/// (exact or `*.` suffix, and ranges or classes in one list consulted only for address and
/// `localhost` hosts), else its exact paths, else its path prefixes, else the
/// whole-segment part of each path pattern's literal prefix (``PathPattern/indexKey``,
/// looked up like a prefix) or, when that is only `/`, a whole segment the pattern requires
/// anywhere (``PathPattern/requiredSegment``), else each `urlPatterns` entry's literal host
/// and leading path (``URLPatternIndex``); handlers with none of these are always
/// candidates. A handler can only match a request whose host or path is one of the keys it is
/// filed under, so looking those keys up yields a superset of the matching handlers; the chain
/// then checks the full match of each candidate in position order, which keeps first-match semantics identical to a linear scan.
///
/// Every lookup is linear in the request's host and path: prefixes are walked in a
/// ``SegmentTrie`` (one hash per segment, not one per leading sub-path), and each distinct
/// segment is looked up once for required segments.
struct ChainIndex: Sendable {
    // Substring keys: a request's parent domains and leading sub-paths are looked up as
    // slices of its host and path, with no string allocated per lookup.
    private var byHost: [Substring: [Int32]] = [:]
    private var byWildcardSuffix: [Substring: [Int32]] = [:]
    /// The byte lengths of the keys of `byWildcardSuffix`: a parent domain of another length
    /// cannot be one, and hashing every parent of a 32 KB host of `a.` labels in full is
    /// quadratic (266 ms with 2,000 wildcard hosts). Only parents of a filed length are hashed.
    private var wildcardSuffixLengths: Set<Int> = []
    private var byPath: [Substring: [Int32]] = [:]
    private var byPathPrefix = SegmentTrie<[Int32]>()
    /// Path patterns by the leading sub-path every path they match has; kept apart from
    /// `byPathPrefix` so policies without patterns do no extra lookups.
    private var byPatternPrefix = SegmentTrie<[Int32]>()
    /// Path patterns whose leading sub-path is only `/` (`/*/secret/*`), by a whole segment
    /// they require: otherwise every request would be a candidate for all of them.
    private var byPatternSegment: [Substring: [Int32]] = [:]
    /// Handlers whose hosts list ranges or classes (`10.0.0.0/8`, `@loopback`), in position
    /// order: candidates only for requests whose host is an address or a `localhost` name.
    private var byAddress: [Int32] = []
    /// Handlers whose hosts or path prefixes are image tables (compiled policies), in position
    /// order: each is a candidate when its own table holds the request's host or a leading part
    /// of its path; a million hosts are not copied into this index.
    private var byMappedTable: [Int32] = []
    private var mappedMatchers: [RequestMatcher] = []
    /// Handlers with only `urlPatterns` of the host and path conditions, by each entry's
    /// literal host and leading path (``URLPatternIndex``).
    private var byURLPattern = URLPatternIndex()
    /// Handlers without host, path or URL pattern conditions, in position order.
    private var unindexed: [Int32] = []
    /// The field each handler is filed under (nil: unindexed). A handler that is not a
    /// candidate fails that field, which lets explain skip checking it (``RequestMatcher/firstMismatch(_:knownFailing:)``).
    private(set) var filedUnder: [RequestMatcher.Field?]

    /// Handlers every decision checks whatever its request (no key to file them under), which
    /// with the few a lookup returns is what one decision costs; the analysis budgets by it.
    var checkedOnEveryDecision: Int { unindexed.count + byAddress.count + byMappedTable.count }

    init(links: [ChainLink]) {
        filedUnder = Array(repeating: nil, count: links.count)
        reserveCapacity(links)
        for (position, link) in links.enumerated() {
            let position = Int32(position)
            // Filed under the keyed forms of the lowest rank the handler states: forms of one
            // rank (the four host forms share the `hosts` list) are filed together.
            var filedRank: Int?
            for (form, rank, field) in Self.filingOrder {
                if let filedRank, rank != filedRank { break }
                if file(form, at: position, link.matcher) {
                    filedRank = rank
                    filedUnder[Int(position)] = field
                }
            }
            if filedRank == nil { unindexed.append(position) }
        }
        wildcardSuffixLengths = Set(byWildcardSuffix.keys.map { $0.utf8.count })
    }

    /// The forms a handler may be filed under, by rank, from their descriptions
    /// (``MatchFormDescription/IndexKeying``), with the field a handler filed under each fails.
    static let filingOrder: [(form: MatchForm, rank: Int, field: RequestMatcher.Field?)] = MatchForm.all.compactMap {
        form -> (MatchForm, Int, RequestMatcher.Field?)? in
        guard case .keyed(let rank) = form.description.index else { return nil }
        return (form, rank, form.description.field)
    }.enumerated().sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }.map {
        (form: $0.element.0, rank: $0.element.1, field: $0.element.2)
    }

    /// The index's part of each form: files the handler at `position` under the keys `form`
    /// gives its entries, and says whether `matcher` states the form (a handler is then
    /// reached only through those keys).
    private mutating func file(_ form: MatchForm, at position: Int32, _ matcher: RequestMatcher) -> Bool {
        switch form {
        case .hostNames:
            guard let hosts = matcher.hosts else { return false }
            for host in hosts.exact { byHost[host, default: []].append(position) }
            // An image table holds names and suffixes alike: consulted once for both.
            if hosts.mapped != nil { fileMapped(position, matcher) }
            return true
        case .hostSuffixes:
            guard let hosts = matcher.hosts else { return false }
            for suffix in hosts.wildcardSuffixes { byWildcardSuffix[suffix, default: []].append(position) }
            return true
        case .hostRanges, .hostClasses:
            // One list for both, consulted only for address and `localhost` hosts.
            guard let hosts = matcher.hosts else { return false }
            if hosts.hasAddressEntries, byAddress.last != position { byAddress.append(position) }
            return true
        case .paths:
            guard matcher.paths.hasExact else { return false }
            // Keys are folded even for case-sensitive handlers: the full match check that
            // follows applies the exact case rule.
            for path in matcher.paths.exact { byPath[asciiLowercased(path), default: []].append(position) }
            return true
        case .pathPrefixes:
            guard matcher.paths.hasPrefixes else { return false }
            if matcher.paths.mappedPrefixes != nil { fileMapped(position, matcher) }
            for prefix in matcher.paths.prefixes {
                byPathPrefix.update(asciiLowercased(prefix), initial: []) { $0.append(position) }
            }
            return true
        case .pathPatterns:
            guard matcher.paths.hasPatterns else { return false }
            for pattern in matcher.paths.patterns {
                // A pattern may repeat a key; one entry per handler keeps candidate lists short.
                if pattern.indexKey == "/", let segment = pattern.requiredSegment {
                    let key = Substring(segment)
                    if byPatternSegment[key]?.last != position { byPatternSegment[key, default: []].append(position) }
                } else {
                    byPatternPrefix.update(Substring(pattern.indexKey), initial: []) { list in
                        if list.last != position { list.append(position) }
                    }
                }
            }
            return true
        case .urlPatterns:
            guard let patterns = matcher.urlPatterns else { return false }
            byURLPattern.file(patterns, at: position)
            return true
        case .schemes, .methods, .navigationTypes, .targetFrames, .caseSensitive, .mode, .defaultDecision, .action,
            .location, .response:
            return false  // never a key (``MatchFormDescription/IndexKeying``)
        }
    }

    private mutating func fileMapped(_ position: Int32, _ matcher: RequestMatcher) {
        byMappedTable.append(position)
        mappedMatchers.append(matcher)
    }

    /// Sizes each dictionary for the keys it will get (counting a key repeated across handlers
    /// once per handler, a small overestimate): growing them one rehash at a time cost ~0.08G
    /// instructions at 100k handlers, about a third of building the index.
    private mutating func reserveCapacity(_ links: [ChainLink]) {
        var hosts = 0
        var wildcardSuffixes = 0
        var paths = 0
        var pathPrefixes = 0
        for link in links {
            let matcher = link.matcher
            if let set = matcher.hosts {
                hosts += set.exact.count
                wildcardSuffixes += set.wildcardSuffixes.count
            } else if matcher.paths.hasExact {
                paths += matcher.paths.exact.count
            } else if matcher.paths.hasPrefixes {
                pathPrefixes += matcher.paths.prefixes.count
            }
        }
        byHost.reserveCapacity(hosts)
        byWildcardSuffix.reserveCapacity(wildcardSuffixes)
        byPath.reserveCapacity(paths)
        byPathPrefix.reserveCapacity(pathPrefixes)
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
                    if wildcardSuffixLengths.contains(parent.utf8.count), let list = byWildcardSuffix[parent] {
                        lists.append(list)
                    }
                    return false
                }
            }
        }
        if !byMappedTable.isEmpty {
            let hits = mappedCandidates(request)
            if !hits.isEmpty { lists.append(hits) }
        }
        let folded = request.matchPath.foldedForm
        if let list = byPath[folded] { lists.append(list) }
        if !byPathPrefix.isEmpty {
            byPathPrefix.anyLeadingSubpath(of: folded) { list in
                lists.append(list)
                return false
            }
        }
        if !byPatternPrefix.isEmpty {
            byPatternPrefix.anyLeadingSubpath(of: folded) { list in
                lists.append(list)
                return false
            }
        }
        if !byPatternSegment.isEmpty, folded.utf8.first == UInt8(ascii: "/") {
            // Each distinct segment once: `/a/a/a/…` must not add the list filed under `a`
            // once per repeat (candidates, and their full match checks, would grow with the path).
            var seen: Set<Substring> = []
            SegmentTrie<[Int32]>.forEachSegment(of: folded) { segment in
                if let list = byPatternSegment[segment], seen.insert(segment).inserted { lists.append(list) }
                return true
            }
        }
        if !byURLPattern.isEmpty { byURLPattern.collect(request, into: &lists) }
        switch lists.count {
        case 0: return []
        case 1: return lists[0]
        default: return lists.flatMap { $0 }.sorted()
        }
    }

    /// The image-table handlers whose filed field holds: a binary search per table.
    private func mappedCandidates(_ request: CanonicalRequest) -> [Int32] {
        var hits: [Int32] = []
        for (offset, position) in byMappedTable.enumerated() {
            let matcher = mappedMatchers[offset]
            let holds: Bool
            if let hosts = matcher.hosts {
                holds = request.matchHostForm.map { hosts.contains($0) } ?? false
            } else {
                holds = matcher.paths.containsPrefix(of: request.matchPath)
            }
            if holds { hits.append(position) }
        }
        return hits
    }
}
