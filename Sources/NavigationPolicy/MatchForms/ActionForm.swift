/// A cancelling handler's `action` (`block`, `logout`, …): what the client is told to do.
enum ActionForm {
    static let description = MatchFormDescription(
        form: .action, configKey: "action", place: .handler, field: nil, storage: ["behavior", "action"],
        normalisation: "1 to 64 letters, digits, \"-\", \"_\" or \".\" (CancelBehavior); the type's default when absent",
        predicate: "the decision's action when the handler decides", reads: .nothing, index: .notACondition,
        automaton: .none, image: .json, analysis: .outcome)
}
