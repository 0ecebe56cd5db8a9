import NavigationPolicy

extension HarnessEngine {
    /// The `pathPatterns` automaton (``ChainPatterns``) for every chain with a pattern, answering
    /// for every handler it covers, and no index.
    public static let patternAutomaton = HarnessEngine(name: "pattern automaton") { policy in
        let chain = policy.compiled.deciding(with: .automatonOnly)
        return { request in try? chain.decide(request) }
    }
}
