/// What one ``MatchForm`` means and how each engine carries it: the single place this is
/// written. Plain values only (no closures, key paths or existentials), so the descriptions
/// compile in Embedded Swift and can be compared in tests; the form's normalisation and
/// reference predicate are the functions beside its description in the same file.
package struct MatchFormDescription: Sendable {
    /// Where the form is written in a config.
    package enum Place: Sendable, Equatable {
        /// A key of a handler's `match` object.
        case match
        /// A key of a handler object that the chain link keeps (`mode`).
        case link
        /// A parameter of a handler object that the handler type reads (`action`, `location`).
        case handler
        /// A top-level key of the config (`defaultDecision`).
        case policy
    }

    /// What of the canonical request the reference predicate reads.
    package enum RequestReading: Sendable, Equatable {
        case scheme
        /// `CanonicalRequest.matchHostForm` (with the URL, for address spellings).
        case host
        /// `CanonicalRequest.matchPath`, folded or exact by the case rule.
        case path
        /// The whole URL in match form and, with `urlPatterns`, as the URLPattern standard reads it.
        case url
        case method
        case navigationType
        case targetFrame
        /// Nothing of the request: the form shapes other forms or the answer.
        case nothing
    }

    /// How ``ChainIndex`` finds the handlers that state this form.
    package enum IndexKeying: Sendable, Equatable {
        /// Filed under keys derived from the entries; a handler is filed under the form of the
        /// lowest rank it states (forms of one config key share a rank and are filed together).
        case keyed(rank: Int)
        /// Never a key: checked on each candidate the keyed forms yield.
        case checkedOnCandidates
        /// Not a condition of a handler's match.
        case notACondition
    }

    /// What the form contributes to the chain's pattern automaton (``ChainPatterns``).
    package enum AutomatonWords: Sendable, Equatable {
        /// Each entry's glob pieces are words of the automaton.
        case globPieces
        case none
    }

    /// How a compiled image (``PolicyImage``) stores the form.
    package enum ImageEncoding: Sendable, Equatable {
        /// As written, in the image's JSON config section.
        case json
        /// From `PolicyImage.defaultTableThreshold` entries on, a sorted key table read in place
        /// (table flag bit `flag` of a handler-tables section); fewer stay JSON.
        case sortedKeyTable(flag: Int)
        /// JSON, with its positions in a list whose other forms are tables recorded beside them.
        case jsonBesideTable
    }

    /// What the analysis (`PolicyAuthoring`) cuts the form into.
    package enum AnalysisModel: Sendable, Equatable {
        /// Regions of one axis of the request (``RequestReading``).
        case regions(RequestReading)
        /// Per pattern, regions where its shape allows (`URLPatternShape`), else "unknown" with the reason.
        case urlPatternShape
        /// How a path axis's entries compare (folded or exact).
        case pathCaseRule
        /// Which links take part in a decision (shadow links never decide).
        case linkMode
        /// The answer a handler or the default gives (`HandlerOutcome`).
        case outcome
        /// Not modelled: every claim resting on it is "unknown" with this reason.
        case unmodelled(String)
    }

    package let form: MatchForm
    /// The config key the form is written under (several forms share `hosts`).
    package let configKey: String
    package let place: Place
    /// The field explain and `firstMismatch` name when the form rejects a request; nil for
    /// forms that are not conditions.
    package let field: RequestMatcher.Field?
    /// The stored properties that hold the compiled form: of ``RequestMatcher/Conditions`` for
    /// `match` forms, of ``ChainLink`` for `link` ones, of the handler (or the ``CancelBehavior``
    /// it holds) for `handler` ones, of ``CompiledPolicy`` for `policy` ones.
    /// Checked by reflection: every stored property is some form's, or bookkeeping.
    package let storage: [String]
    /// How an entry is normalised, in words (the function beside the description does it).
    package let normalisation: String
    /// The reference predicate, in words (the function beside the description decides it).
    package let predicate: String
    package let reads: RequestReading
    package let index: IndexKeying
    package let automaton: AutomatonWords
    package let image: ImageEncoding
    package let analysis: AnalysisModel
}
