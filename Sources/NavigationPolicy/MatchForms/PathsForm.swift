/// `match.paths`: the request's path is this path, as lenient servers read it.
enum PathsForm {
    static let description = MatchFormDescription(
        form: .paths, configKey: "paths", place: .match, field: .paths, storage: ["paths"],
        normalisation: "through the URL parser's path (dot segments, percent-encoding), then MatchPath "
            + "(trailing slash, empty segments); folded unless caseSensitive",
        predicate: "the request's path in match form equals the entry", reads: .path, index: .keyed(rank: 1),
        automaton: .none, image: .json, analysis: .regions(.path))

    /// An entry in match form, or why it is not a path (``RequestMatcher/configPath(_:)``).
    static func normalized(_ written: String) -> Result<MatchPath, PatternError> { RequestMatcher.configPath(written) }

    /// The reference predicate for one entry's key (``CaseSensitiveForm/key(_:caseSensitive:)``).
    @inline(__always)
    static func holds(_ key: String, _ request: CanonicalRequest, caseSensitive: Bool) -> Bool {
        CaseSensitiveForm.compared(request.matchPath, caseSensitive: caseSensitive) == key
    }
}
