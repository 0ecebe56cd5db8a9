/// `match.targetFrames`: the navigation targets one of these frames (main, sub, new window).
enum TargetFramesForm {
    static let description = MatchFormDescription(
        form: .targetFrames, configKey: "targetFrames", place: .match, field: .targetFrames,
        storage: ["targetFrames"], normalisation: "one of TargetFrame's raw values, exactly",
        predicate: "the request's target frame equals an entry", reads: .targetFrame, index: .checkedOnCandidates,
        automaton: .none, image: .json, analysis: .regions(.targetFrame))

    /// What of the request the form compares (the scan looks it up in the set of entries).
    @inline(__always)
    static func value(of request: CanonicalRequest) -> TargetFrame { request.targetFrame }

    /// The reference predicate for one entry (its raw value).
    @inline(__always)
    static func holds(_ entry: String, _ request: CanonicalRequest) -> Bool { value(of: request).rawValue == entry }
}
