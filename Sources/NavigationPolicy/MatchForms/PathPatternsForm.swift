/// `match.pathPatterns`: the request's whole path matches this glob (`*` any run of characters,
/// `?` one character).
enum PathPatternsForm {
    static let description = MatchFormDescription(
        form: .pathPatterns, configKey: "pathPatterns", place: .match, field: .pathPatterns,
        storage: ["paths"], normalisation: "PathPattern.compile: literal parts as paths, folded unless caseSensitive",
        predicate: "PathPattern.matches over the request's path in match form", reads: .path,
        index: .keyed(rank: 3), automaton: .globPieces, image: .json, analysis: .regions(.path))

    /// The reference predicate for one compiled pattern (which carries its case rule).
    @inline(__always)
    static func holds(_ pattern: PathPattern, _ request: CanonicalRequest) -> Bool { pattern.matches(request.matchPath) }
}
