/// The config's `defaultDecision`: what applies when no handler decides.
enum DefaultDecisionForm {
    static let description = MatchFormDescription(
        form: .defaultDecision, configKey: "defaultDecision", place: .policy, field: nil,
        storage: ["defaultVerdict"], normalisation: "\"allow\" (the default) or \"cancel\", exactly",
        predicate: "the decision when no enforcing link decides; a cancel has the action \"block\"",
        reads: .nothing, index: .notACondition, automaton: .none, image: .json, analysis: .outcome)

    /// A written default, or nil when it is neither verdict.
    static func normalized(_ written: String) -> Decision.Verdict? { Decision.Verdict.spelled(written) }
}
