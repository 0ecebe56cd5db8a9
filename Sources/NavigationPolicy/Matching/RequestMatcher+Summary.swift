extension RequestMatcher {
    /// A one-line description of the match conditions, in canonical form, for `validate`
    /// and `/v1/policy`: `hosts=pay.example.com paths=/logout,/sign_out`.
    public var summary: String {
        var parts: [String] = []
        func add(_ key: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            let sorted = values.sorted()
            let shown = sorted.prefix(5).joined(separator: ",")
            parts.append("\(key)=\(shown)" + (sorted.count > 5 ? ",…(+\(sorted.count - 5))" : ""))
        }
        if let schemes { add("schemes", Array(schemes)) }
        if let hosts {
            let explicitRanges = entries.compactMap { entry -> String? in
                if case .hostRange(let range) = entry.test { range.description } else { nil }
            }
            add(
                "hosts",
                hosts.exact.map(String.init) + hosts.wildcardSuffixes.map { "*." + $0 } + hosts.classes.map(\.entry)
                    + explicitRanges)
        }
        add("paths", paths.exact.map(String.init))
        add("pathPrefixes", paths.prefixes.map(String.init))
        add("pathPatterns", paths.patterns.map(\.text))
        add("urlPatterns", entries.filter { $0.field == .urlPatterns }.map(\.written))
        if let methods { add("methods", Array(methods)) }
        if let navigationTypes { add("navigationTypes", navigationTypes.map(\.rawValue)) }
        if let targetFrames { add("targetFrames", targetFrames.map(\.rawValue)) }
        if paths.caseSensitive { parts.append("caseSensitive") }
        return parts.isEmpty ? "(every request)" : parts.joined(separator: " ")
    }
}
