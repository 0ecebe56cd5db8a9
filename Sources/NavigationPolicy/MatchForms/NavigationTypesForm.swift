/// `match.navigationTypes`: the navigation is one of these kinds (link, form submission, …).
enum NavigationTypesForm {
    static let description = MatchFormDescription(
        form: .navigationTypes, configKey: "navigationTypes", place: .match, field: .navigationTypes,
        storage: ["navigationTypes"], normalisation: "one of NavigationType's raw values, exactly",
        predicate: "the request's navigation type equals an entry", reads: .navigationType,
        index: .checkedOnCandidates, automaton: .none, image: .json, analysis: .regions(.navigationType))

    /// What of the request the form compares (the scan looks it up in the set of entries).
    @inline(__always)
    static func value(of request: CanonicalRequest) -> NavigationType { request.navigationType }

    /// The reference predicate for one entry (its raw value).
    @inline(__always)
    static func holds(_ entry: String, _ request: CanonicalRequest) -> Bool { value(of: request).rawValue == entry }
}
