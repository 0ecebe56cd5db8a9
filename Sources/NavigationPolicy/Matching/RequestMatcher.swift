import JSONSupport

/// A handler's compiled `match` block: every field given must hold; within a list, any entry may.
///
/// Shared by every handler type, so matching semantics cannot drift between handlers.
public struct RequestMatcher: Sendable {
    /// The field of `match` that rejected a request; used to explain decisions.
    public enum Field: String, Sendable, CaseIterable {
        case schemes, hosts, paths, pathPrefixes, pathPatterns, urlPatterns, methods, navigationTypes, targetFrames
    }

    /// The conditions, behind one immutable reference: a decision reads the matcher of every
    /// handler it consults out of its ``ChainLink``, and copying a struct of ten collections
    /// retained and released each of them (a quarter of a decision's instructions with the
    /// default policy). Immutable (`let`) fields of a final class also need no exclusivity checks.
    private let storage: Storage

    private final class Storage: Sendable {
        let conditions: Conditions

        init(_ conditions: Conditions) {
            self.conditions = conditions
        }
    }

    /// The fields of a `match` block as compiled; built by ``decode(_:diagnostics:)``, then frozen.
    package struct Conditions: Sendable {
        var schemes: Set<String>?
        var hosts: HostSet?
        package var paths: PathSet
        var methods: Set<String>?
        var navigationTypes: Set<NavigationType>?
        var targetFrames: Set<TargetFrame>?
        /// `urlPatterns` (``URLPatternCondition``); nil when not given.
        package var urlPatterns: [URLPattern]?
        /// How `urlPatterns` read when the decision's regexp budget stopped a run and no entry
        /// matched: as matched for a cancelling handler, as not for an allow-list (fail closed;
        /// set by ``ChainLink``).
        var undecidedURLPatternsHold = true
        package var entries: [MatchEntry] = []

        init(caseSensitive: Bool) {
            paths = PathSet(caseSensitive: caseSensitive)
        }

        mutating func record(_ field: Field, _ index: Int, _ written: String, _ test: MatchEntry.Test) {
            entries.append(MatchEntry(field: field, index: index, written: written, test: test))
        }
    }

    package init(_ conditions: Conditions) {
        storage = Storage(conditions)
    }

    /// The compiled fields, for building a changed copy (``attachingImageTables(hosts:inlineHostIndices:pathPrefixes:)``).
    package var conditions: Conditions { storage.conditions }

    // Reads yield in place (`_read`) rather than return a copy: the hot path asks `paths`
    // several questions per request, and a getter would retain its three collections each time.
    package var schemes: Set<String>? { _read { yield storage.conditions.schemes } }
    package var hosts: HostSet? { _read { yield storage.conditions.hosts } }
    package var paths: PathSet { _read { yield storage.conditions.paths } }
    package var methods: Set<String>? { _read { yield storage.conditions.methods } }
    package var navigationTypes: Set<NavigationType>? { _read { yield storage.conditions.navigationTypes } }
    package var targetFrames: Set<TargetFrame>? { _read { yield storage.conditions.targetFrames } }
    package var urlPatterns: [URLPattern]? { _read { yield storage.conditions.urlPatterns } }
    /// Every configured entry in config order, for explain, coverage and lint (never on the hot path).
    public var entries: [MatchEntry] { storage.conditions.entries }

    /// This matcher with `urlPatterns` read as `holds` when the regexp budget stops a run
    /// (``Conditions/undecidedURLPatternsHold``).
    func readingUndecidedURLPatterns(as holds: Bool) -> RequestMatcher {
        guard urlPatterns != nil, storage.conditions.undecidedURLPatternsHold != holds else { return self }
        var conditions = storage.conditions
        conditions.undecidedURLPatternsHold = holds
        return RequestMatcher(conditions)
    }

    /// A matcher with no conditions: matches every request (a handler without `match`).
    public static let everything = RequestMatcher(Conditions(caseSensitive: false))

    /// Whether every given field holds.
    @inline(__always)
    public func matches(_ request: CanonicalRequest) -> Bool {
        firstMismatch(request) == nil
    }

    /// The first field that does not hold, or nil when the request matches.
    ///
    /// Cheap fields (bit-like sets) are checked before host and path lookups.
    public func firstMismatch(_ request: CanonicalRequest) -> Field? {
        firstMismatch(request) { paths.containsPatternMatch(request.matchPath) }
    }

    /// ``firstMismatch(_:)`` with the `pathPatterns` verdict asked of `patternsMatch` (called
    /// only when every other field holds): a chain answers it for all its handlers in one pass
    /// over the path (``ChainPatterns``).
    @inline(__always)
    func firstMismatch(_ request: CanonicalRequest, patternsMatch: () -> Bool) -> Field? {
        if let targetFrames, !targetFrames.contains(TargetFramesForm.value(of: request)) { return .targetFrames }
        if let navigationTypes, !navigationTypes.contains(NavigationTypesForm.value(of: request)) {
            return .navigationTypes
        }
        if let methods, !methods.contains(MethodsForm.value(of: request)) { return .methods }
        if let schemes, !schemes.contains(SchemesForm.value(of: request)) { return .schemes }
        if let hosts {
            guard let host = request.matchHostForm, hosts.contains(host, of: request.url) else { return .hosts }
        }
        if paths.hasExact, !paths.containsExact(request.matchPath) { return .paths }
        if paths.hasPrefixes, !paths.containsPrefix(of: request.matchPath) { return .pathPrefixes }
        if paths.hasPatterns, !patternsMatch() { return .pathPatterns }
        if let urlPatterns,
            !URLPatternCondition.holds(urlPatterns, request, undecidedHolds: storage.conditions.undecidedURLPatternsHold)
        {
            return .urlPatterns
        }
        return nil
    }

    /// Whether the `pathPatterns` index gives the plain scan's answer for `request` (FuzzDecideCost).
    package func pathPatternIndexAgreesWithScan(_ request: CanonicalRequest) -> Bool {
        paths.patternIndexAgreesWithScan(request.matchPath)
    }

    /// A sentence saying why `field` rejected `request`, for `--explain` traces.
    ///
    /// Hosts and paths are shown up to ``explainedLength`` bytes: a trace has a step per
    /// handler, and repeating a 64 KB path in each would make one explained decision cost
    /// (and answer) the path times the chain.
    public func explain(_ field: Field, for request: CanonicalRequest) -> String {
        let path = { Self.shortened(request.matchPath.textForm) }
        return switch field {
        case .schemes: "scheme \"\(request.scheme)\" is not in schemes"
        case .hosts:
            request.matchHostForm.map { "host \"\(Self.shortened($0))\" is not in hosts" } ?? "the URL has no host"
        case .paths: "path \"\(path())\" is not in paths"
        case .pathPrefixes: "path \"\(path())\" is not under any of pathPrefixes"
        case .pathPatterns: "path \"\(path())\" matches none of pathPatterns"
        case .urlPatterns:
            "URL \"\(Self.shortened(Substring(request.href)))\" matches none of urlPatterns"
                + (request.readsURLAsStandard ? " (read as the URLPattern standard reads it)" : " (in match form)")
        case .methods: "method \"\(request.method)\" is not in methods"
        case .navigationTypes: "navigationType \"\(request.navigationType.rawValue)\" is not in navigationTypes"
        case .targetFrames: "targetFrame \"\(request.targetFrame.rawValue)\" is not in targetFrames"
        }
    }

    /// How many bytes of a host or path an explain reason shows before `…`.
    static let explainedLength = 200

    /// `text` cut to ``explainedLength`` bytes with an ellipsis: for messages that quote input.
    package static func shortened(_ text: Substring) -> String {
        let bytes = text.utf8
        guard bytes.count > explainedLength else { return String(text) }
        return String(decoding: bytes.prefix(explainedLength), as: UTF8.self) + "…"
    }

    /// ``firstMismatch(_:)`` for a handler the chain index did not offer for `request`: the
    /// field it is filed under (`filed`) cannot hold, so it is reported without being checked
    /// (a path pattern costs a pass over the path; an explained decision would pay that for
    /// every handler). The fields checked before it are cheap and checked as usual.
    func firstMismatch(_ request: CanonicalRequest, knownFailing filed: Field) -> Field {
        if let targetFrames, !targetFrames.contains(TargetFramesForm.value(of: request)) { return .targetFrames }
        if let navigationTypes, !navigationTypes.contains(NavigationTypesForm.value(of: request)) {
            return .navigationTypes
        }
        if let methods, !methods.contains(MethodsForm.value(of: request)) { return .methods }
        if let schemes, !schemes.contains(SchemesForm.value(of: request)) { return .schemes }
        return filed
    }
}

extension RequestMatcher {
    /// The keys a `match` object may have: those of the `match` forms' descriptions.
    package static let keys = MatchForm.matchKeys

    /// Decodes and validates a `match` object, reporting every problem.
    public static func decode(_ config: ConfigObject, diagnostics: inout ConfigDiagnostics) -> RequestMatcher {
        decode(config, lists: ListDecoding(), diagnostics: &diagnostics)
    }

    /// How ``decode(_:lists:diagnostics:)`` reads and stores `hosts` and `pathPrefixes`.
    struct ListDecoding {
        /// From this many entries a list is stored as a sorted key table (the compiled image's
        /// storage) instead of hashed sets and one ``MatchEntry`` per entry; nil: never.
        var tableThreshold: Int?
        /// Lists streamed from the config bytes, standing in for the `match` object's (empty) arrays.
        var streamed: StreamedMatchLists?

        /// Whether the list under `key` (of `count` entries) becomes a table.
        func usesTable(_ count: Int) -> Bool {
            tableThreshold.map { count >= $0 } ?? false
        }
    }

    static func decode(_ config: ConfigObject, lists: ListDecoding, diagnostics: inout ConfigDiagnostics)
        -> RequestMatcher
    {
        config.checkKeys(allowed: keys, diagnostics: &diagnostics)
        let caseSensitive = config.bool("caseSensitive", diagnostics: &diagnostics) ?? false
        var matcher = Conditions(caseSensitive: caseSensitive)
        // One allocation for the entries, from the lists' lengths before any is read (so issues
        // come out in the same order): a typical handler lists two entries, and growing the
        // array 1 → 2 (→ 4) cost ~0.05G over a 100k-handler config. Invalid entries, unknown or
        // repeated keys only make this too large by a few slots for that handler. Lists that
        // become tables record no entries.
        let listed = config.object.members.reduce(0) { total, member in
            guard case .array(let elements) = member.value else { return total }
            let tabled = StreamedMatchLists.keys.containsSameUTF8(member.key) && lists.usesTable(elements.count)
            return tabled ? total : total + elements.count
        }
        if listed > 0 { matcher.entries.reserveCapacity(listed) }

        for form in MatchForm.all {
            decode(form, config, lists, into: &matcher, diagnostics: &diagnostics)
        }
        return RequestMatcher(matcher)
    }

    /// The config compiler's part of each form (``MatchForm``): reads its entries, normalised as
    /// its description says, into `matcher`, recording each entry for explain, coverage and lint.
    private static func decode(
        _ form: MatchForm, _ config: ConfigObject, _ lists: ListDecoding, into matcher: inout Conditions,
        diagnostics: inout ConfigDiagnostics
    ) {
        let caseSensitive = matcher.paths.caseSensitive
        switch form {
        case .schemes:
            guard let entries = config.stringList("schemes", diagnostics: &diagnostics) else { return }
            var schemes: Set<String> = []
            for (index, scheme) in entries {
                if let normalized = SchemesForm.normalized(scheme) {
                    schemes.insert(normalized)
                    matcher.record(.schemes, index, scheme, .value(normalized))
                } else {
                    diagnostics.report(
                        config.pointer(to: "schemes", index),
                        "\"\(scheme)\": not a URL scheme (a letter, then letters, digits, \"+\", \"-\" or \".\"; no \":\")")
                }
            }
            matcher.schemes = schemes
        case .hostNames:
            // One `hosts` list holds all four host forms; each entry is parsed to its form
            // (`HostPattern.parse`) and stored by ``decodeHosts(_:_:_:into:diagnostics:)``.
            if let list = MatchStringList.read("hosts", of: config, streamed: lists.streamed, diagnostics: &diagnostics) {
                decodeHosts(list, config, lists, into: &matcher, diagnostics: &diagnostics)
            }
        case .hostSuffixes, .hostRanges, .hostClasses: break  // in the `hosts` list, decoded with `.hostNames`
        case .paths:
            guard let entries = config.stringList("paths", diagnostics: &diagnostics) else { return }
            for (index, path) in entries {
                guard let matchPath = decodePath(path, "paths", index, config, diagnostics: &diagnostics) else { continue }
                matcher.paths.insertExact(matchPath)
                matcher.record(.paths, index, path, .path(CaseSensitiveForm.key(matchPath, caseSensitive: caseSensitive)))
            }
        case .pathPrefixes:
            let prefixes = MatchStringList.read(
                "pathPrefixes", of: config, streamed: lists.streamed, diagnostics: &diagnostics)
            if let prefixes {
                decodePathPrefixes(prefixes, config, lists, into: &matcher, diagnostics: &diagnostics)
            }
        case .pathPatterns:
            guard let entries = config.stringList("pathPatterns", diagnostics: &diagnostics) else { return }
            for (index, text) in entries {
                if let advice = PatternAdvice.pattern(text) {
                    diagnostics.report(config.pointer(to: "pathPatterns", index), advice)
                    continue
                }
                switch PathPattern.compile(text, caseSensitive: caseSensitive) {
                case .success(let pattern):
                    matcher.paths.insertPattern(pattern)
                    matcher.record(.pathPatterns, index, text, .pattern(pattern))
                case .failure(let error):
                    diagnostics.report(config.pointer(to: "pathPatterns", index), "\"\(text)\": \(error.reason)")
                }
            }
            matcher.paths.indexPatterns()
        case .urlPatterns:
            URLPatternCondition.decode(config, caseSensitive: caseSensitive, into: &matcher, diagnostics: &diagnostics)
        case .methods:
            guard let entries = config.stringList("methods", diagnostics: &diagnostics) else { return }
            var methods: Set<String> = []
            for (index, method) in entries {
                if let normalized = MethodsForm.normalized(method) {
                    methods.insert(normalized)
                    if let implied = MethodsForm.implied(by: normalized) { methods.insert(implied) }
                    matcher.record(.methods, index, method, .value(normalized))
                } else {
                    diagnostics.report(config.pointer(to: "methods", index), "\"\(method)\": not an HTTP method token")
                }
            }
            matcher.methods = methods
        case .navigationTypes:
            matcher.navigationTypes = enumSet(config, .navigationTypes, matcher: &matcher, diagnostics: &diagnostics)
        case .targetFrames:
            matcher.targetFrames = enumSet(config, .targetFrames, matcher: &matcher, diagnostics: &diagnostics)
        case .caseSensitive:
            break  // read first, into `Conditions(caseSensitive:)`: every path form's key depends on it
        case .mode, .defaultDecision, .action, .location, .response:
            break  // not `match` keys: PolicyCompiler and the handler types read them
        }
    }

    private static func enumSet<Value: CaseIterable & RawRepresentable & Hashable>(
        _ config: ConfigObject, _ field: Field, matcher: inout Conditions, diagnostics: inout ConfigDiagnostics
    ) -> Set<Value>? where Value.RawValue == String {
        guard let entries = config.stringList(field.rawValue, diagnostics: &diagnostics) else { return nil }
        // Sized once: an empty set allocates at the first insert and grows at the second (~0.035G
        // over a 100k-handler config's navigationTypes lists).
        var values = Set<Value>(minimumCapacity: entries.underestimatedCount)
        for (index, text) in entries {
            // By bytes (``CaseIterable/spelled(_:)``): `init(rawValue:)` normalizes a hostile value first.
            if let value = Value.spelled(text) {
                values.insert(value)
                matcher.record(field, index, text, .value(text))
            } else {
                diagnostics.report(
                    config.pointer(to: field.rawValue, index),
                    "\"\(EchoedText.bounded(text))\": unknown value; expected one of \(Value.acceptedValuesList)")
            }
        }
        return values
    }

    /// Reduces a configured path to match form through the same WHATWG path parser as requests,
    /// so `/über`, `/a/./b` and `/Logout/` in config mean what they mean in a URL.
    static func configPath(_ path: String) -> Result<MatchPath, PatternError> {
        guard path.hasPrefix("/") else { return .failure(PatternError("a path must start with \"/\"")) }
        // The Character-level search (~10k instructions) only runs when one of the bytes is there.
        let mayHaveQueryOrFragment = path.utf8.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        guard !mayHaveQueryOrFragment || (!path.contains("?") && !path.contains("#")) else {
            return .failure(PatternError("a path must not contain \"?\" or \"#\""))
        }
        // No plain-path shortcut: it saved 3.6% of a 100,000-path config load, under the 5% a
        // fast twin must pay (docs/performance.md "Fast twins re-measured").
        do {
            let record = try URLRecord.parse("http://path.invalid" + path)
            return .success(MatchPath(record))
        } catch {
            return .failure(PatternError("not a valid URL path: \(error)"))
        }
    }
}
