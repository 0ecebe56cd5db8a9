/// `match.urlPatterns`: the URL matches this URLPattern, in match form or as the standard reads it.
enum URLPatternsForm {
    static let description = MatchFormDescription(
        form: .urlPatterns, configKey: "urlPatterns", place: .match, field: .urlPatterns,
        storage: ["urlPatterns", "undecidedURLPatternsHold"],
        normalisation: "URLPattern (a string or an object of components); ignoreCase unless caseSensitive",
        predicate: "URLPatternCondition.holds: an entry matches a reading of the URL; a run the regexp budget "
            + "stops fails closed (matched for a cancelling handler, not for an allow-list)",
        reads: .url, index: .keyed(rank: 4), automaton: .none, image: .json, analysis: .urlPatternShape)

    /// The reference predicate for one pattern.
    @inline(__always)
    static func holds(_ pattern: URLPattern, _ request: CanonicalRequest) -> Bool { pattern.matches(request) }
}
