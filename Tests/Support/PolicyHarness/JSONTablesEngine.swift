import NavigationPolicy

extension HarnessEngine {
    /// The policy loaded from its JSON bytes as the daemon loads it (streamed, large lists as
    /// sorted tables: ``PolicyCompiler/storingLargeListsAsTables(threshold:)``), its engines
    /// chosen by size as in production.
    public static let jsonTables = HarnessEngine(name: "JSON-loaded (tables)") { policy in
        let chain = try PolicyCompiler().storingLargeListsAsTables(threshold: harnessTableThreshold).compile(policy.bytes)
        return { request in try? chain.decide(request) }
    }
}
