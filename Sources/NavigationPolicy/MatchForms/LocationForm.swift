/// A cancelling handler's `location`: the template of where the client goes instead.
enum LocationForm {
    static let description = MatchFormDescription(
        form: .location, configKey: "location", place: .handler, field: nil, storage: ["location", "locationRule"],
        normalisation: "LocationTemplate.compile; whether the type takes one, and what it defaults to, is its "
            + "CancelBehavior.LocationRule",
        predicate: "the decision's location when the handler decides: the template rendered over the request",
        reads: .nothing, index: .notACondition, automaton: .none, image: .json, analysis: .outcome)
}
