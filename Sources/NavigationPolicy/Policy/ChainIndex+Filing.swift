extension ChainIndex {
    /// The index's lists, filled while handlers are filed into them (``ChainIndex/init(links:)``)
    /// and then kept by the index as they are.
    struct Filing: Sendable {
        // Byte keys (``ByteKeyTable``): a request's host, parent domains, path and segments are
        // looked up as bytes read in place from its match forms, with nothing allocated or retained
        // per lookup.
        var byHost = ByteKeyTable<[Int32]>()
        var byWildcardSuffix = ByteKeyTable<[Int32]>()
        var byPath = ByteKeyTable<[Int32]>()
        var byPathPrefix = SegmentTrie<[Int32]>()
        /// Path patterns by the leading sub-path every path they match has; kept apart from
        /// `byPathPrefix` so policies without patterns do no extra lookups.
        var byPatternPrefix = SegmentTrie<[Int32]>()
        /// Path patterns whose leading sub-path is only `/` (`/*/secret/*`), by a whole segment
        /// they require: otherwise every request would be a candidate for all of them.
        var byPatternSegment = ByteKeyTable<[Int32]>()
        /// Handlers whose hosts list ranges or classes (`10.0.0.0/8`, `@loopback`), in position
        /// order: candidates only for requests whose host is an address or a `localhost` name.
        var byAddress: [Int32] = []
        /// Handlers whose hosts or path prefixes are image tables (compiled policies), in position
        /// order: each is a candidate when its own table holds the request's host or a leading part
        /// of its path; a million hosts are not copied into this index.
        var byMappedTable: [Int32] = []
        var mappedMatchers: [RequestMatcher] = []
        /// Handlers with only `urlPatterns` of the host and path conditions, by each entry's
        /// literal host and leading path (``URLPatternIndex``).
        var byURLPattern = URLPatternIndex()
        /// Handlers without host, path or URL pattern conditions, in position order.
        var unindexed: [Int32] = []
        /// The field each handler is filed under (nil: unindexed). A handler that is not a
        /// candidate fails that field, which lets explain skip checking it (``RequestMatcher/firstMismatch(_:knownFailing:)``).
        var filedUnder: [RequestMatcher.Field?] = []

        /// The index's part of each form: files the handler at `position` under the keys `form`
        /// gives its entries, and says whether `matcher` states the form (a handler is then
        /// reached only through those keys).
        mutating func file(_ form: MatchForm, at position: Int32, _ matcher: RequestMatcher) -> Bool {
            switch form {
            case .hostNames:
                guard let hosts = matcher.hosts else { return false }
                for host in hosts.exact { Self.file(position, under: host, in: &byHost) }
                // An image table holds names and suffixes alike: consulted once for both.
                if hosts.mapped != nil { fileMapped(position, matcher) }
                return true
            case .hostSuffixes:
                guard let hosts = matcher.hosts else { return false }
                for suffix in hosts.wildcardSuffixes { Self.file(position, under: suffix, in: &byWildcardSuffix) }
                return true
            case .hostRanges, .hostClasses:
                // One list for both, consulted only for address and `localhost` hosts.
                guard let hosts = matcher.hosts else { return false }
                if hosts.hasAddressEntries, byAddress.last != position { byAddress.append(position) }
                return true
            case .paths:
                guard matcher.paths.hasExact else { return false }
                // Keys are folded even for case-sensitive handlers: the full match check that
                // follows applies the exact case rule.
                for path in matcher.paths.exact { Self.file(position, under: asciiLowercased(path), in: &byPath) }
                return true
            case .pathPrefixes:
                guard matcher.paths.hasPrefixes else { return false }
                if matcher.paths.mappedPrefixes != nil { fileMapped(position, matcher) }
                for prefix in matcher.paths.prefixes {
                    byPathPrefix.update(asciiLowercased(prefix), initial: []) { $0.append(position) }
                }
                return true
            case .pathPatterns:
                guard matcher.paths.hasPatterns else { return false }
                for pattern in matcher.paths.patterns {
                    // A pattern may repeat a key; one entry per handler keeps candidate lists short.
                    if pattern.indexKey == "/", let segment = pattern.requiredSegment {
                        Self.file(position, under: Substring(segment), in: &byPatternSegment)
                    } else {
                        byPatternPrefix.update(Substring(pattern.indexKey), initial: []) { list in
                            if list.last != position { list.append(position) }
                        }
                    }
                }
                return true
            case .urlPatterns:
                guard let patterns = matcher.urlPatterns else { return false }
                byURLPattern.file(patterns, at: position)
                return true
            case .schemes, .methods, .navigationTypes, .targetFrames, .caseSensitive, .mode, .defaultDecision, .action,
                .location, .response:
                return false  // never a key (``MatchFormDescription/IndexKeying``)
            }
        }

        /// Adds `position` to the list filed under `key` (once: a handler may repeat a key).
        private static func file(_ position: Int32, under key: Substring, in table: inout ByteKeyTable<[Int32]>) {
            let entry = table.insert(key, value: [])
            if table[entry].last != position { table[entry].append(position) }
        }

        static func longestKey(_ table: ByteKeyTable<[Int32]>) -> Int {
            (0..<table.count).reduce(0) { max($0, table.keyLength($1)) }
        }

        private mutating func fileMapped(_ position: Int32, _ matcher: RequestMatcher) {
            byMappedTable.append(position)
            mappedMatchers.append(matcher)
        }

        /// Sizes each dictionary for the keys it will get (counting a key repeated across handlers
        /// once per handler, a small overestimate): growing them one rehash at a time cost ~0.08G
        /// instructions at 100k handlers, about a third of building the index.
        mutating func reserveCapacity(_ links: [ChainLink]) {
            var hosts = 0
            var wildcardSuffixes = 0
            var paths = 0
            var pathPrefixes = 0
            for link in links {
                let matcher = link.matcher
                if let set = matcher.hosts {
                    hosts += set.exact.count
                    wildcardSuffixes += set.wildcardSuffixes.count
                } else if matcher.paths.hasExact {
                    paths += matcher.paths.exact.count
                } else if matcher.paths.hasPrefixes {
                    pathPrefixes += matcher.paths.prefixes.count
                }
            }
            byHost.reserveCapacity(hosts)
            byWildcardSuffix.reserveCapacity(wildcardSuffixes)
            byPath.reserveCapacity(paths)
            byPathPrefix.reserveCapacity(pathPrefixes)
        }
    }
}
