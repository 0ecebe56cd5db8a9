/// Every form a policy can state "which handler decides" in: the conditions of a `match` block,
/// a link's mode, the policy's default, and what a handler answers with.
///
/// Each form's meaning is written once, in its description (``description``, one file per form
/// under `MatchForms/`): its config key, how an entry is normalised, the reference predicate
/// over the canonical request, and how each engine carries it (index keys, automaton words,
/// image encoding, analysis region). The engines' mechanical parts switch over this enum
/// without `default:`, so a new case does not compile until every engine says what it does with
/// it; docs/architecture.md ("Changing or adding a match form") lists those places.
///
/// The declaration order is the order `match` keys are decoded and listed in (`caseSensitive`,
/// which every path form's key depends on, is read before the others), so diagnostics keep
/// their order.
package enum MatchForm: String, CaseIterable, Sendable {
    case schemes
    case hostNames
    case hostSuffixes
    case hostRanges
    case hostClasses
    case paths
    case pathPrefixes
    case pathPatterns
    case urlPatterns
    case methods
    case navigationTypes
    case targetFrames
    case caseSensitive
    case mode
    case defaultDecision
    case action
    case location
    case response

    // Never inlined: it reads 18 lazily initialized descriptions, and each list derived from them
    // (`matchKeys`, `tableKeys`, `fieldOrder`, `ChainIndex.filingOrder`, `ChainPatterns.wordForms`)
    // inlined its own copy of all of them: about 30 KB of the WebAssembly module
    // (docs/performance.md, issue 43). Nothing decides through it.
    /// The one description of this form.
    @inline(never)
    package var description: MatchFormDescription {
        switch self {
        case .caseSensitive: CaseSensitiveForm.description
        case .schemes: SchemesForm.description
        case .hostNames: HostNamesForm.description
        case .hostSuffixes: HostSuffixesForm.description
        case .hostRanges: HostRangesForm.description
        case .hostClasses: HostClassesForm.description
        case .paths: PathsForm.description
        case .pathPrefixes: PathPrefixesForm.description
        case .pathPatterns: PathPatternsForm.description
        case .urlPatterns: URLPatternsForm.description
        case .methods: MethodsForm.description
        case .navigationTypes: NavigationTypesForm.description
        case .targetFrames: TargetFramesForm.description
        case .mode: ModeForm.description
        case .defaultDecision: DefaultDecisionForm.description
        case .action: ActionForm.description
        case .location: LocationForm.description
        case .response: ResponseForm.description
        }
    }
}

extension MatchForm {
    /// Every form, once: `allCases` of an enum builds a new array at each call.
    package static let all = allCases

    /// The keys a `match` object may have, in decoding order: derived from the descriptions.
    static let matchKeys: [String] = distinctKeys(allCases.filter { $0.description.place == .match })

    /// The `match` keys whose large lists a compiled image stores as sorted key tables (and the
    /// config reader streams into columns): derived from the descriptions.
    static let tableKeys: [String] = distinctKeys(
        allCases.filter { form in
            if case .sortedKeyTable = form.description.image { true } else { false }
        })

    /// The fields of the `match` forms, in the forms' order, each once (explain's order).
    static let fieldOrder: [RequestMatcher.Field] = {
        var fields: [RequestMatcher.Field] = []
        for form in all {
            if let field = form.description.field, !fields.contains(field) { fields.append(field) }
        }
        return fields
    }()

    /// The forms a `match` field (as explain names it) is written in.
    package static func forms(of field: RequestMatcher.Field) -> [MatchForm] {
        allCases.filter { $0.description.field == field }
    }

    private static func distinctKeys(_ forms: [MatchForm]) -> [String] {
        var keys: [String] = []
        for form in forms where !keys.contains(form.description.configKey) { keys.append(form.description.configKey) }
        return keys
    }
}
