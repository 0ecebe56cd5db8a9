import NavigationPolicy

extension HarnessEngine {
    /// The chain index (``ChainIndex``) for every chain, however short, and no automaton: the
    /// index's candidates each check their own conditions.
    public static let indexedChain = HarnessEngine(name: "indexed chain") { policy in
        let chain = policy.compiled.deciding(with: .indexOnly)
        return { request in try? chain.decide(request) }
    }
}
