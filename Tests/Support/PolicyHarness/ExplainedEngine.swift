import NavigationPolicy

extension HarnessEngine {
    /// `decide` with `explain`: the walk that reports every handler (and what the index filed it under).
    public static let explained = HarnessEngine(name: "explained") { policy in
        let chain = policy.compiled
        return { request in try? chain.decide(request, explain: true) }
    }
}
