/// Exact paths and segment-boundary prefixes, in match form.
///
/// Prefixes are looked up per leading sub-path of the request (`/a`, `/a/b`, …), so a
/// request costs one hash lookup per path segment however many prefixes are configured.
struct PathSet: Sendable {
    /// Looked up with a request's path as the slice it already is; few are kept unhashed.
    private(set) var exact = FewKeys()
    /// Looked up with a request's leading sub-paths as slices of its path; few are kept unhashed.
    private(set) var prefixes = FewKeys()
    /// `pathPatterns`, tried in order; only handlers that have some pay for them.
    private(set) var patterns: [PathPattern] = []
    let caseSensitive: Bool

    init(caseSensitive: Bool) {
        self.caseSensitive = caseSensitive
    }

    /// Adds a config path already reduced to match form (`MatchPath.text`).
    // Keys are copied into strings of their own, so a set does not keep the config URL they were sliced from.
    mutating func insertExact(_ path: MatchPath) { exact.insert(String(key(path))) }
    mutating func insertPrefix(_ path: MatchPath) { prefixes.insert(String(key(path))) }

    var hasExact: Bool { !exact.isEmpty }
    var hasPrefixes: Bool { !prefixes.isEmpty }
    var hasPatterns: Bool { !patterns.isEmpty }

    mutating func insertPattern(_ pattern: PathPattern) { patterns.append(pattern) }

    func containsPatternMatch(_ path: MatchPath) -> Bool {
        patterns.contains { $0.matches(path) }
    }

    func containsExact(_ path: MatchPath) -> Bool {
        exact.contains(key(path))
    }

    /// Whether a configured prefix equals the path or one of its leading whole-segment parts.
    func containsPrefix(of path: MatchPath) -> Bool {
        let text = key(path)
        // Opaque paths (`javascript:…`) have no segments: no prefix, not even `/`, covers them.
        guard text.utf8.first == UInt8(ascii: "/") else { return false }
        return MatchPath.anyLeadingSubpath(of: text) { prefixes.contains($0) }
    }

    private func key(_ path: MatchPath) -> Substring { caseSensitive ? path.textForm : path.foldedForm }
}
