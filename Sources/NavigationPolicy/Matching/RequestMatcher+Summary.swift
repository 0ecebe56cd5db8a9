extension RequestMatcher {
    /// A one-line description of the match conditions, in canonical form, for `validate`
    /// and `/v1/policy`: `hosts=pay.example.com paths=/logout,/sign_out`.
    public var summary: String {
        var parts: [String] = []
        // `unlisted`: entries of image tables not in `values` (their first five are), counted.
        func add(_ key: String, _ values: [String], unlisted: Int = 0) {
            guard !values.isEmpty else { return }
            let sorted = values.sorted()
            let total = sorted.count + unlisted
            let shown = sorted.prefix(5).joined(separator: ",")
            parts.append("\(key)=\(shown)" + (total > 5 ? ",…(+\(total - 5))" : ""))
        }
        if let schemes { add("schemes", Array(schemes)) }
        if let hosts {
            let explicitRanges = entries.compactMap { entry -> String? in
                if case .hostRange(let range) = entry.test { range.description } else { nil }
            }
            let mapped =
                hosts.mapped.map { [ImageSummary.firstKeys($0.exact), ImageSummary.firstKeys($0.wildcardSuffixes, "*.")] }
                ?? []
            add(
                "hosts",
                hosts.exact.map(String.init) + hosts.wildcardSuffixes.map { "*." + $0 } + hosts.classes.map { $0.entry }
                    + explicitRanges + mapped.flatMap { $0.keys }, unlisted: mapped.reduce(0) { $0 + $1.unlisted })
        }
        add("paths", paths.exact.map(String.init))
        let mappedPrefixes = paths.mappedPrefixes.map { ImageSummary.firstKeys($0.table) }
        add(
            "pathPrefixes", paths.prefixes.map(String.init) + (mappedPrefixes?.keys ?? []),
            unlisted: mappedPrefixes?.unlisted ?? 0)
        add("pathPatterns", paths.patterns.map { $0.text })
        add("urlPatterns", entries.filter { $0.field == .urlPatterns }.map { $0.written })
        if let methods { add("methods", Array(methods)) }
        if let navigationTypes { add("navigationTypes", navigationTypes.map { $0.rawValue }) }
        if let targetFrames { add("targetFrames", targetFrames.map { $0.rawValue }) }
        if paths.caseSensitive { parts.append("caseSensitive") }
        return parts.isEmpty ? "(every request)" : parts.joined(separator: " ")
    }
}
