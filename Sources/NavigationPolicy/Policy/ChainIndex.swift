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
///
/// A class: a lookup reads the request's host and path bytes in place through closures, which
/// capture one reference to it; in the WebAssembly build a struct's capture copied (retained
/// and released) every table on every decision (docs/performance.md, "Issue 43").
final class ChainIndex: Sendable {
    /// The lists handlers were filed into (``Filing``), kept as they are.
    private let filed: Filing
    /// Whether some key of `byWildcardSuffix` is this many bytes long, by length: a parent
    /// domain of another length cannot be one, and hashing every parent of a 32 KB host of `a.`
    /// labels in full is quadratic (266 ms with 2,000 wildcard hosts). Only parents of a filed
    /// length are hashed.
    private let wildcardSuffixLengths: [Bool]

    /// The field each handler is filed under (``Filing/filedUnder``).
    var filedUnder: [RequestMatcher.Field?] { filed.filedUnder }

    /// Handlers every decision checks whatever its request (no key to file them under), which
    /// with the few a lookup returns is what one decision costs; the analysis budgets by it.
    var checkedOnEveryDecision: Int { filed.unindexed.count + filed.byAddress.count + filed.byMappedTable.count }

    init(links: [ChainLink]) {
        var filing = Filing()
        filing.filedUnder = Array(repeating: nil, count: links.count)
        filing.reserveCapacity(links)
        for (position, link) in links.enumerated() {
            let position = Int32(position)
            // Filed under the keyed forms of the lowest rank the handler states: forms of one
            // rank (the four host forms share the `hosts` list) are filed together.
            var filedRank: Int?
            for (form, rank, field) in Self.filingOrder {
                if let filedRank, rank != filedRank { break }
                if filing.file(form, at: position, link.matcher) {
                    filedRank = rank
                    filing.filedUnder[Int(position)] = field
                }
            }
            if filedRank == nil { filing.unindexed.append(position) }
        }
        var lengths = Array(repeating: false, count: Filing.longestKey(filing.byWildcardSuffix) + 1)
        for entry in 0..<filing.byWildcardSuffix.count { lengths[filing.byWildcardSuffix.keyLength(entry)] = true }
        wildcardSuffixLengths = lengths
        filed = filing
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

    /// Positions of the handlers that may match `request`, ascending, possibly with repeats.
    func candidates(for request: CanonicalRequest) -> [Int32] {
        var lists: [[Int32]] = []
        if !filed.unindexed.isEmpty { lists.append(filed.unindexed) }
        if let host = request.matchHostForm {
            host.withUTF8Bytes { hostCandidates(host: $0, into: &lists) }
            if !filed.byAddress.isEmpty, HostAddress.mayMatch(host, of: request.url) { lists.append(filed.byAddress) }
        }
        if !filed.byMappedTable.isEmpty {
            let hits = mappedCandidates(request)
            if !hits.isEmpty { lists.append(hits) }
        }
        request.matchPath.foldedForm.withUTF8Bytes { pathCandidates(folded: $0, into: &lists) }
        if !filed.byURLPattern.isEmpty { filed.byURLPattern.collect(request, into: &lists) }
        switch lists.count {
        case 0: return []
        case 1: return lists[0]
        default: return lists.flatMap { $0 }.sorted()
        }
    }

    /// The lists filed under the host and under each of its parent domains.
    private func hostCandidates(host: UnsafeBufferPointer<UInt8>, into lists: inout [[Int32]]) {
        if let entry = filed.byHost.index(of: host) { lists.append(filed.byHost[entry]) }
        guard !filed.byWildcardSuffix.isEmpty else { return }
        _ = MatchHost.anyParentDomain(of: host) { parent in
            if parent.count < wildcardSuffixLengths.count, wildcardSuffixLengths[parent.count],
                let entry = filed.byWildcardSuffix.index(of: parent)
            {
                lists.append(filed.byWildcardSuffix[entry])
            }
            return false
        }
    }

    /// The lists filed under the folded path, its leading sub-paths and its segments.
    private func pathCandidates(folded: UnsafeBufferPointer<UInt8>, into lists: inout [[Int32]]) {
        if !filed.byPath.isEmpty, let entry = filed.byPath.index(of: folded) { lists.append(filed.byPath[entry]) }
        if !filed.byPathPrefix.isEmpty {
            filed.byPathPrefix.anyLeadingSubpath(of: folded) { list in
                lists.append(list)
                return false
            }
        }
        if !filed.byPatternPrefix.isEmpty {
            filed.byPatternPrefix.anyLeadingSubpath(of: folded) { list in
                lists.append(list)
                return false
            }
        }
        if !filed.byPatternSegment.isEmpty, folded.first == UInt8(ascii: "/") {
            // Each distinct segment once: `/a/a/a/…` must not add the list filed under `a`
            // once per repeat (candidates, and their full match checks, would grow with the path).
            var seen: Set<Int> = []
            var segments = PathSegments(folded)
            while let segment = segments.next() {
                if let entry = filed.byPatternSegment.index(of: segment), seen.insert(entry).inserted {
                    lists.append(filed.byPatternSegment[entry])
                }
            }
        }
    }

    /// The image-table handlers whose filed field holds: a binary search per table.
    private func mappedCandidates(_ request: CanonicalRequest) -> [Int32] {
        var hits: [Int32] = []
        for (offset, position) in filed.byMappedTable.enumerated() {
            let matcher = filed.mappedMatchers[offset]
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
