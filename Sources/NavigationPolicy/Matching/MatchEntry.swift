/// One entry of a `match` list as configured, kept so that explain traces, coverage and
/// lint can name it (`paths[1] "/sign_out"`); decisions use the indexed sets instead.
public struct MatchEntry: Sendable {
    /// How the entry is compared, in the comparison form it was reduced to.
    package enum Test: Sendable {
        /// A scheme, method, navigation type or target frame, compared for equality.
        case value(String)
        case host(String)
        /// `*.suffix`: a proper subdomain of `suffix`.
        case hostWildcard(String)
        /// A CIDR range: every address in it, in any spelling (`0x7f.1`, `[::ffff:127.0.0.1]`).
        /// Boxed: its 24 bytes inline would grow every entry of a 100,000-handler chain by 8.
        indirect case hostRange(AddressRange)
        /// A named class (`@loopback`): its ranges, and for loopback the `localhost` names.
        case hostClass(AddressClass)
        /// An exact path, already folded unless the matcher is case-sensitive.
        case path(String)
        case prefix(String)
        case pattern(PathPattern)
        /// A `urlPatterns` entry (``URLPatternCondition``).
        case urlPattern(URLPattern)
    }

    /// The `match` field the entry belongs to.
    public let field: RequestMatcher.Field
    /// Position in its list.
    public let index: Int
    /// As written in config.
    public let written: String
    package let test: Test

    /// Spelled out (the memberwise one is internal) for the analysis, which lists the entries a
    /// matcher keeps in tables as entries too.
    package init(field: RequestMatcher.Field, index: Int, written: String, test: Test) {
        self.field = field
        self.index = index
        self.written = written
        self.test = test
    }

    /// The comparison form, so `/Logout` and `/logout/` are seen as one entry.
    package var comparedAs: String {
        switch test {
        case .value(let text), .host(let text), .path(let text), .prefix(let text): text
        case .hostWildcard(let suffix): "*." + suffix
        case .hostRange(let range): range.description
        case .hostClass(let addressClass): addressClass.entry
        case .pattern(let pattern): pattern.caseSensitive ? pattern.text : asciiLowercased(pattern.text)
        case .urlPattern: written
        }
    }

    /// `paths[1] "/sign_out"`.
    public var label: String { "\(field.rawValue)[\(index)] \"\(written)\"" }
}

extension RequestMatcher {
    /// Whether one entry holds for a request: its form's reference predicate (``MatchForm``).
    public func entryMatches(_ entry: MatchEntry, _ request: CanonicalRequest) -> Bool {
        let caseSensitive = paths.caseSensitive
        switch entry.test {
        case .value(let value):
            switch entry.field {
            case .schemes: return SchemesForm.holds(value, request)
            case .methods: return MethodsForm.holds(value, request)
            case .navigationTypes: return NavigationTypesForm.holds(value, request)
            case .targetFrames: return TargetFramesForm.holds(value, request)
            default: return false
            }
        case .host(let host): return HostNamesForm.holds(host, request)
        case .hostWildcard(let suffix): return HostSuffixesForm.holds(suffix, request)
        case .hostRange(let range): return HostRangesForm.holds(range, request)
        case .hostClass(let addressClass): return HostClassesForm.holds(addressClass, request)
        case .path(let key): return PathsForm.holds(key, request, caseSensitive: caseSensitive)
        case .prefix(let key): return PathPrefixesForm.holds(key, request, caseSensitive: caseSensitive)
        case .pattern(let pattern): return PathPatternsForm.holds(pattern, request)
        case .urlPattern(let pattern): return URLPatternsForm.holds(pattern, request)
        }
    }

    /// For a request the matcher accepts: the first entry of each configured field that holds, in field order.
    ///
    /// The first matching path pattern comes from the handler's pattern index
    /// (``PathSet/firstPatternMatch(_:)``), not from trying its patterns in turn: a trace must not
    /// cost every pattern of a long list times the path.
    public func matchedEntries(_ request: CanonicalRequest) -> [MatchEntry] {
        matchedEntries(request) { paths.firstPatternMatch(request.matchPath) }
    }

    /// ``matchedEntries(_:)`` with the first matching pattern asked of `firstPattern`, which a
    /// chain answers from its one pass over the path (``ChainPatterns``).
    func matchedEntries(_ request: CanonicalRequest, firstPattern: () -> Int?) -> [MatchEntry] {
        mergingImageEntries(listedEntries(request, firstPattern: firstPattern), request)
    }

    /// ``matchedEntries(_:firstPattern:)`` over the entries the matcher holds one by one.
    private func listedEntries(_ request: CanonicalRequest, firstPattern: () -> Int?) -> [MatchEntry] {
        var seen: [Field] = []
        var matched: [MatchEntry] = []
        for entry in entries where !seen.contains(entry.field) {
            if entry.field == .pathPatterns {
                seen.append(.pathPatterns)
                // Pattern entries are recorded in the order ``PathSet/patterns`` holds them.
                if let first = firstPattern(),
                    let hit = entries.lazy.filter({ $0.field == .pathPatterns }).dropFirst(first).first
                {
                    matched.append(hit)
                }
                continue
            }
            guard entryMatches(entry, request) else { continue }
            seen.append(entry.field)
            matched.append(entry)
        }
        return matched
    }

    /// The request's own value for a field, as the trace shows it (`"/SIGN_OUT/"`).
    public func requestValue(_ field: Field, _ request: CanonicalRequest) -> String {
        switch field {
        case .schemes: request.scheme
        case .hosts: request.url.hostname
        case .paths, .pathPrefixes, .pathPatterns: request.url.pathname
        case .urlPatterns: request.href
        case .methods: request.method
        case .navigationTypes: request.navigationType.rawValue
        case .targetFrames: request.targetFrame.rawValue
        }
    }
}
