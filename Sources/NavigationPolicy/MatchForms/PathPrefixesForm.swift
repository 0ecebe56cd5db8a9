/// `match.pathPrefixes`: the request's path is this path or below it, segment-wise.
enum PathPrefixesForm {
    static let description = MatchFormDescription(
        form: .pathPrefixes, configKey: "pathPrefixes", place: .match, field: .pathPrefixes,
        storage: ["paths"], normalisation: "as paths",
        predicate: "the request's path in match form is the entry or under it at a segment boundary",
        reads: .path, index: .keyed(rank: 2), automaton: .none, image: .sortedKeyTable(flag: 2),
        analysis: .regions(.path))

    /// The reference predicate for one entry's key (``CaseSensitiveForm/key(_:caseSensitive:)``).
    @inline(__always)
    static func holds(_ key: String, _ request: CanonicalRequest, caseSensitive: Bool) -> Bool {
        MatchPath.isCovered(CaseSensitiveForm.compared(request.matchPath, caseSensitive: caseSensitive), byPrefix: key)
    }
}
