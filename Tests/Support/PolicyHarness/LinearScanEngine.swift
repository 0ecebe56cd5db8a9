import NavigationPolicy

extension HarnessEngine {
    /// The reference: every handler in order, on every reading of the request, combined as
    /// `decide` combines them (``CompiledPolicy/decideLinearAllReadings(_:)``).
    public static let linearScan = HarnessEngine(name: "linear scan") { policy in
        let chain = policy.compiled
        return { request in (try? CanonicalRequest(request)).map { chain.decideLinearAllReadings($0) } }
    }
}
