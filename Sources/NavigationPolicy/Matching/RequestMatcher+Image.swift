extension RequestMatcher {
    /// This matcher with the large lists of a compiled image attached: `hosts` names and
    /// `pathPrefixes` read in place. The image's JSON kept the rest of each list (ranges,
    /// classes), whose entries get back the positions they had in the source list.
    func attachingImageTables(
        hosts names: MappedHostNames?, inlineHostIndices: [Int], pathPrefixes: MappedPathPrefixes?
    ) -> RequestMatcher {
        var conditions = self.conditions
        if let names {
            var hosts = conditions.hosts ?? HostSet()
            hosts.attach(names)
            conditions.hosts = hosts
            var hostEntry = 0
            conditions.entries = conditions.entries.map { entry in
                guard entry.field == .hosts else { return entry }
                defer { hostEntry += 1 }
                let index = hostEntry < inlineHostIndices.count ? inlineHostIndices[hostEntry] : entry.index
                return MatchEntry(field: entry.field, index: index, written: entry.written, test: entry.test)
            }
        }
        if let pathPrefixes { conditions.paths.attach(pathPrefixes) }
        return RequestMatcher(conditions)
    }

    /// `matched` (the first listed entry of each field that holds) with an image table's entry
    /// in its place where the table's is listed first, so explain names what the JSON chain names.
    func mergingImageEntries(_ matched: [MatchEntry], _ request: CanonicalRequest) -> [MatchEntry] {
        var matched = matched
        if let names = hosts?.mapped, let host = request.matchHostForm, let entry = names.firstEntry(for: host) {
            Self.merge(entry, into: &matched)
        }
        if let prefixes = paths.mappedPrefixes, let entry = prefixes.firstEntry(for: paths.key(request.matchPath)) {
            Self.merge(entry, into: &matched)
        }
        return matched
    }

    /// The order explain lists matched entries in: the forms' (``MatchForm``) fields, in order.
    private static let fieldOrder: [Field] = MatchForm.fieldOrder

    private static func merge(_ entry: MatchEntry, into matched: inout [MatchEntry]) {
        if let existing = matched.firstIndex(where: { $0.field == entry.field }) {
            if entry.index < matched[existing].index { matched[existing] = entry }
            return
        }
        let rank = fieldOrder.firstIndex(of: entry.field) ?? fieldOrder.count
        let position = matched.firstIndex { (fieldOrder.firstIndex(of: $0.field) ?? fieldOrder.count) > rank }
        matched.insert(entry, at: position ?? matched.endIndex)
    }
}

/// The first keys of an image table for ``RequestMatcher/summary`` (which shows five, sorted).
enum ImageSummary {
    static func firstKeys(_ table: SortedKeyTable, _ prefix: String = "") -> (keys: [String], unlisted: Int) {
        let shown = min(table.count, 5)
        return ((0..<shown).map { prefix + table.keyText($0) }, table.count - shown)
    }
}
