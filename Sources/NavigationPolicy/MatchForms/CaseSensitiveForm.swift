/// `match.caseSensitive`: whether the path forms compare letters exactly (default: folded).
enum CaseSensitiveForm {
    static let description = MatchFormDescription(
        form: .caseSensitive, configKey: "caseSensitive", place: .match, field: nil, storage: ["paths"],
        normalisation: "a JSON boolean; absent is false",
        predicate: "not a condition: paths, pathPrefixes, pathPatterns and urlPatterns compare folded (ASCII) "
            + "unless it is true",
        reads: .nothing, index: .notACondition, automaton: .none, image: .json, analysis: .pathCaseRule)

    /// A configured path in the comparison form of the case rule.
    @inline(__always)
    static func key(_ path: MatchPath, caseSensitive: Bool) -> String { caseSensitive ? path.text : path.folded }

    /// A request's path in the comparison form of the case rule.
    @inline(__always)
    static func compared(_ path: MatchPath, caseSensitive: Bool) -> Substring {
        caseSensitive ? path.textForm : path.foldedForm
    }
}
