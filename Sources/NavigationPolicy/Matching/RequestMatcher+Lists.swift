extension RequestMatcher {
    /// Decodes `hosts` into a ``HostSet``: small lists into hashed sets with an entry each,
    /// large ones (``ListDecoding/usesTable(_:)``) into sorted key tables, the storage a
    /// compiled image maps, so both forms decide through the same lookups.
    static func decodeHosts(
        _ list: MatchStringList, _ config: ConfigObject, _ lists: ListDecoding, into matcher: inout Conditions,
        diagnostics: inout ConfigDiagnostics
    ) {
        var hosts = HostSet()
        defer { matcher.hosts = hosts }
        guard lists.usesTable(list.count) else {
            list.forEach { index, pattern in
                guard let parsed = parseHost(pattern, index, config, diagnostics: &diagnostics) else { return }
                insert(parsed, written: pattern, at: index, into: &hosts, &matcher)
            }
            return
        }
        var tables = HostTableBuilder(reservingCapacity: list.count)
        list.forEachBytes { index, bytes in
            guard !tables.addPlain(bytes, configIndex: index) else { return }
            let pattern = String(decoding: bytes, as: UTF8.self)
            guard let parsed = parseHost(pattern, index, config, diagnostics: &diagnostics) else { return }
            // Ranges and classes stay entries, as in an image, where only an address host consults them.
            if !tables.add(parsed, written: pattern, configIndex: index) {
                insert(parsed, written: pattern, at: index, into: &hosts, &matcher)
            }
        }
        do throws(PolicyImageError) {
            hosts.attach(MappedHostNames(exact: try tables.exact.build(), wildcardSuffixes: try tables.wildcards.build()))
        } catch {
            diagnostics.report(config.pointer.appending("hosts"), "internal error: the host table is invalid: \(error.reason)")
        }
    }

    /// Adds a parsed `hosts` entry to the set and records it (names, when the list is small;
    /// ranges and classes always).
    private static func insert(
        _ parsed: HostPattern.Parsed, written pattern: String, at index: Int, into hosts: inout HostSet,
        _ matcher: inout Conditions
    ) {
        switch parsed {
        case .exact(let host):
            hosts.insertExact(host)
            matcher.record(.hosts, index, pattern, .host(host))
        case .wildcard(let suffix):
            hosts.insertWildcard(suffix: suffix)
            matcher.record(.hosts, index, pattern, .hostWildcard(suffix))
        case .range(let range):
            hosts.insertRange(range)
            matcher.record(.hosts, index, pattern, .hostRange(range))
        case .addressClass(let addressClass):
            hosts.insertClass(addressClass)
            matcher.record(.hosts, index, pattern, .hostClass(addressClass))
        }
    }

    /// One `hosts` entry in canonical form, or nil after reporting why it is not one.
    private static func parseHost(
        _ pattern: String, _ index: Int, _ config: ConfigObject, diagnostics: inout ConfigDiagnostics
    ) -> HostPattern.Parsed? {
        if let advice = PatternAdvice.host(pattern) {
            diagnostics.report(config.pointer(to: "hosts", index), advice)
            return nil
        }
        switch HostPattern.parse(pattern) {
        case .success(let parsed): return parsed
        case .failure(let error):
            // Range errors already start with the entry (they are shared with other configs).
            let quoted = "\"\(pattern)\""
            let message = error.reason.hasPrefix(quoted) ? error.reason : "\(quoted): \(error.reason)"
            diagnostics.report(config.pointer(to: "hosts", index), message)
            return nil
        }
    }

    /// Decodes `pathPrefixes` into the ``PathSet``: a sorted key table for a large list.
    static func decodePathPrefixes(
        _ list: MatchStringList, _ config: ConfigObject, _ lists: ListDecoding, into matcher: inout Conditions,
        diagnostics: inout ConfigDiagnostics
    ) {
        let caseSensitive = matcher.paths.caseSensitive
        guard lists.usesTable(list.count) else {
            list.forEach { index, path in
                guard let matchPath = decodePath(path, "pathPrefixes", index, config, diagnostics: &diagnostics) else {
                    return
                }
                matcher.paths.insertPrefix(matchPath)
                matcher.record(
                    .pathPrefixes, index, path, .prefix(CaseSensitiveForm.key(matchPath, caseSensitive: caseSensitive)))
            }
            return
        }
        var table = SortedKeyTableBuilder(reservingCapacity: list.count, bytesPerKey: 24)
        list.forEach { index, path in
            guard let matchPath = decodePath(path, "pathPrefixes", index, config, diagnostics: &diagnostics) else { return }
            let key = CaseSensitiveForm.key(matchPath, caseSensitive: caseSensitive)
            table.add(key.utf8, configIndex: index, written: path == key ? nil : path)
        }
        do throws(PolicyImageError) {
            matcher.paths.attach(MappedPathPrefixes(try table.build()))
        } catch {
            diagnostics.report(
                config.pointer.appending("pathPrefixes"), "internal error: the prefix table is invalid: \(error.reason)")
        }
    }

    /// One `paths` or `pathPrefixes` entry in match form, or nil after reporting why not.
    static func decodePath(
        _ path: String, _ key: String, _ index: Int, _ config: ConfigObject, diagnostics: inout ConfigDiagnostics
    ) -> MatchPath? {
        if let advice = PatternAdvice.exactPath(path, field: key) {
            diagnostics.report(config.pointer(to: key, index), advice)
            return nil
        }
        switch configPath(path) {
        case .success(let matchPath): return matchPath
        case .failure(let error):
            diagnostics.report(config.pointer(to: key, index), "\"\(path)\": \(error.reason)")
            return nil
        }
    }
}
