/// Exact paths and segment-boundary prefixes, in match form.
///
/// Prefixes are looked up per leading sub-path of the request (`/a`, `/a/b`, …): a few by
/// comparing lengths first (a key can equal only the one sub-path of its length), more in a
/// ``SegmentTrie`` (one hash per path segment). Either way a request costs time linear in
/// its path however many prefixes are configured.
package struct PathSet: Sendable {
    /// Looked up with a request's path as the slice it already is; few are kept unhashed.
    package private(set) var exact = FewKeys()
    /// Looked up with a request's leading sub-paths as slices of its path; few are kept unhashed.
    package private(set) var prefixes = FewKeys()
    /// The prefixes again, once there are more than ``FewKeys/limit``: hashing every leading
    /// sub-path in full would be quadratic in the path's segments.
    private var prefixTrie: SegmentTrie<Bool>?
    /// `pathPatterns` in config order; only handlers that have some pay for them.
    package private(set) var patterns: [PathPattern] = []
    /// The patterns again, once there are more than ``FewKeys/limit``: a request then tries only
    /// those it could match (``PatternIndex``), not each against the whole path.
    private var patternIndex: PatternIndex?
    package let caseSensitive: Bool
    /// Prefixes read in place from a compiled policy image (large lists only), or nil.
    package private(set) var mappedPrefixes: MappedPathPrefixes?

    package init(caseSensitive: Bool) {
        self.caseSensitive = caseSensitive
    }

    /// Adds a config path already reduced to match form (`MatchPath.text`).
    // Keys are copied into strings of their own, so a set does not keep the config URL they were sliced from.
    mutating func insertExact(_ path: MatchPath) { exact.insert(String(key(path))) }
    mutating func insertPrefix(_ path: MatchPath) {
        guard prefixes.insert(String(key(path))) else { return }
        if prefixTrie == nil, prefixes.count > FewKeys.limit {
            var trie = SegmentTrie<Bool>()
            for prefix in prefixes { trie.update(prefix, initial: true) { _ in } }
            prefixTrie = trie
        } else if prefixTrie != nil {
            let added = key(path)
            prefixTrie?.update(added, initial: true) { _ in }
        }
    }

    package var hasExact: Bool { !exact.isEmpty }
    package var hasPrefixes: Bool { !prefixes.isEmpty || mappedPrefixes != nil }

    /// Adds the prefixes of an image's table to those inserted one by one.
    mutating func attach(_ table: MappedPathPrefixes) { mappedPrefixes = table }
    package var hasPatterns: Bool { !patterns.isEmpty }

    mutating func insertPattern(_ pattern: PathPattern) {
        patterns.append(pattern)
        // A stale index would miss the new pattern; ``indexPatterns()`` builds it once all are in.
        patternIndex = nil
    }

    /// Builds the pattern index once all patterns are in (``RequestMatcher/decode(_:diagnostics:)``).
    mutating func indexPatterns() {
        patternIndex = patterns.count > FewKeys.limit ? PatternIndex(patterns) : nil
    }

    func containsPatternMatch(_ path: MatchPath) -> Bool {
        guard let patternIndex else { return patterns.contains { $0.matches(path) } }
        return patternIndex.anyCandidates(path.foldedForm) { list in
            list.contains { patterns[Int($0)].matches(path) }
        }
    }

    /// How many patterns ``containsPatternMatch(_:)`` would try for `path` (all of them without
    /// an index, else its candidates), counted up to just past `limit`: a chain tries a few
    /// itself before it runs its automaton (``LazyPatternHits``), cheaper once many would be tried.
    func candidatePatternCount(_ path: MatchPath, upTo limit: Int) -> Int {
        guard let patternIndex else { return patterns.count }
        var count = 0
        patternIndex.anyCandidates(path.foldedForm) { list in
            count += list.count
            return count > limit
        }
        return count
    }

    /// The position of the first pattern (in config order) that matches, for explain traces;
    /// with an index, only candidates are tried.
    func firstPatternMatch(_ path: MatchPath) -> Int? {
        guard let patternIndex else { return patterns.firstIndex { $0.matches(path) } }
        var first: Int32?
        patternIndex.anyCandidates(path.foldedForm) { list in
            // Lists are ascending: past the best match so far, nothing earlier is left in this list.
            for position in list {
                if let best = first, position >= best { break }
                if patterns[Int(position)].matches(path) {
                    first = position
                    break
                }
            }
            return false
        }
        return first.map(Int.init)
    }

    /// Whether the index answers as trying every pattern in order does (both whether one matches
    /// and which comes first), for the fuzz target that feeds both the same paths.
    func patternIndexAgreesWithScan(_ path: MatchPath) -> Bool {
        let scanned = patterns.firstIndex { $0.matches(path) }
        return containsPatternMatch(path) == (scanned != nil) && firstPatternMatch(path) == scanned
    }

    func containsExact(_ path: MatchPath) -> Bool {
        exact.contains(key(path))
    }

    /// Whether a configured prefix equals the path or one of its leading whole-segment parts.
    func containsPrefix(of path: MatchPath) -> Bool {
        let text = key(path)
        // Opaque paths (`javascript:…`) have no segments: no prefix, not even `/`, covers them.
        guard text.utf8.first == UInt8(ascii: "/") else { return false }
        if let mappedPrefixes, mappedPrefixes.covers(text) { return true }
        if let prefixTrie { return prefixTrie.anyLeadingSubpath(of: text) { $0 } }
        guard !prefixes.isEmpty else { return false }
        return MatchPath.anyLeadingSubpath(of: text) { prefixes.contains($0) }
    }

    /// The request's path in this set's compare form (folded unless `caseSensitive`).
    func key(_ path: MatchPath) -> Substring { caseSensitive ? path.textForm : path.foldedForm }
}
