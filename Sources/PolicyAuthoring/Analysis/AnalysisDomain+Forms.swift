extension AnalysisDomain {
    /// The analysis's part of each form (``MatchForm``): what it cuts the form into. MatchFormTests
    /// hold it to the forms' descriptions (``MatchFormDescription/analysis``). A form answered
    /// `.unmodelled` here keeps its stored fields out of ``ModelledFields``, so every claim that
    /// rests on it is "unknown" with the reason, never a false proof.
    static func model(of form: MatchForm) -> MatchFormDescription.AnalysisModel {
        switch form {
        case .schemes: .regions(.scheme)
        case .hostNames, .hostSuffixes, .hostRanges, .hostClasses: .regions(.host)
        case .paths, .pathPrefixes, .pathPatterns: .regions(.path)
        case .urlPatterns: .urlPatternShape
        case .methods: .regions(.method)
        case .navigationTypes: .regions(.navigationType)
        case .targetFrames: .regions(.targetFrame)
        case .caseSensitive: .pathCaseRule
        case .mode: .linkMode
        case .defaultDecision, .action, .location, .response: .outcome
        }
    }

    /// The axis of a box that a region model cuts, or nil for a reading that is no axis.
    static func axis(of reading: MatchFormDescription.RequestReading) -> Int? {
        switch reading {
        case .host: host
        case .path: path
        case .scheme: scheme
        case .method: method
        case .navigationType: navigationType
        case .targetFrame: targetFrame
        case .url, .nothing: nil
        }
    }

    /// The stored fields of the forms written at `place` that the analysis models.
    static func modelledStorage(_ place: MatchFormDescription.Place) -> Set<String> {
        var fields: Set<String> = []
        for form in MatchForm.all where form.description.place == place {
            if case .unmodelled = model(of: form) { continue }
            fields.formUnion(form.description.storage)
        }
        return fields
    }
}
