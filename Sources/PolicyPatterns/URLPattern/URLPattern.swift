/// A WHATWG URL pattern (https://urlpattern.spec.whatwg.org/): one pattern per URL component,
/// built from a whole-URL pattern string (with an optional base URL) or a ``URLPatternInit``,
/// and matched with ``test(_:baseURL:)`` / ``exec(_:baseURL:)``.
///
/// Components are canonicalized with this project's URL parser, so a pattern and the URLs it is
/// matched against agree on IDNA, IP address forms and percent-encoding. Regexp groups `(…)` run
/// on ``ECMARegex``, a linear-time engine for the ECMAScript subset it accepts; anything else is
/// refused when the pattern is built.
public struct URLPattern: Sendable {
    /// Options of the constructor (`URLPatternOptions`).
    public struct Options: Sendable, Equatable {
        /// Match the pathname, search and hash case-insensitively.
        public var ignoreCase: Bool

        /// Creates options.
        public init(ignoreCase: Bool = false) { self.ignoreCase = ignoreCase }
    }

    package let components: [URLPatternComponent]
    /// In a policy: the pathname as the match-form reading compares it, when its fixed text
    /// has escapes the match form decodes (``URLPatternComponent/matchFormCopy(_:)``).
    package private(set) var matchFormPathname: URLPatternComponent?
    /// The same for the search component.
    private(set) var matchFormSearch: URLPatternComponent?

    /// Index of the pathname and search among ``components``.
    package static let pathnameIndex = 5
    package static let searchIndex = 6

    /// Builds a pattern ("create a URL pattern").
    /// - Parameters:
    ///   - input: a whole-URL pattern string, or a dictionary of component patterns.
    ///   - baseURL: for a string only: the URL that absent leading components come from.
    /// - Throws: ``URLPatternError`` naming the component and offset that is wrong.
    public init(_ input: URLPatternInput, baseURL: String? = nil, options: Options = Options()) throws(URLPatternError) {
        var initValue: URLPatternInit
        switch input {
        case .string(let string):
            initValue = try ConstructorStringParser.parse(string)
            if baseURL == nil, initValue.protocol == nil {
                throw URLPatternError(
                    .arguments, "the pattern '\(string)' has no scheme, so it needs a base URL")
            }
            if let baseURL { initValue.baseURL = baseURL }
        case .dictionary(let dictionary):
            if baseURL != nil {
                throw URLPatternError(.arguments, "a base URL goes inside the dictionary ('baseURL'), not beside it")
            }
            initValue = dictionary
        }
        var processed = try initValue.processed(as: .pattern, defaults: nil)
        for name in URLPatternInit.componentNames where processed[component: name] == nil {
            processed[component: name] = "*"
        }
        let protocolPattern = processed.protocol ?? "*"
        if URLPatternCanonicalization.isSpecialScheme(protocolPattern),
            processed.port == URLPatternCanonicalization.defaultPort(protocolPattern)
        {
            processed.port = ""
        }
        func compile(
            _ name: String, _ options: PatternOptions, _ encode: @escaping PatternParser.EncodingCallback
        ) throws(URLPatternError) -> URLPatternComponent {
            try URLPatternComponent.compile(processed[component: name] ?? "*", component: name, options: options, encode: encode)
        }
        let protocolComponent = try compile("protocol", .default, URLPatternCanonicalization.protocol)
        let username = try compile("username", .default) { URLPatternCanonicalization.username($0) }
        let password = try compile("password", .default) { URLPatternCanonicalization.password($0) }
        let hostnamePattern = processed.hostname ?? "*"
        let hostname =
            Self.hostnamePatternIsIPv6(hostnamePattern)
            ? try compile("hostname", .hostname, URLPatternCanonicalization.ipv6Hostname)
            : try compile("hostname", .hostname, URLPatternCanonicalization.hostname)
        let port = try compile("port", .default) { (value: String) throws(URLPatternError) in
            try URLPatternCanonicalization.port(value)
        }
        var compileOptions = PatternOptions.default
        compileOptions.ignoreCase = options.ignoreCase
        let pathname: URLPatternComponent
        if protocolComponent.matchesSpecialScheme {
            var pathOptions = PatternOptions.pathname
            pathOptions.ignoreCase = options.ignoreCase
            pathname = try compile("pathname", pathOptions) { URLPatternCanonicalization.pathname($0) }
        } else {
            pathname = try compile("pathname", compileOptions) { URLPatternCanonicalization.opaquePathname($0) }
        }
        let search = try compile("search", compileOptions) { URLPatternCanonicalization.search($0) }
        let hash = try compile("hash", compileOptions) { URLPatternCanonicalization.hash($0) }
        components = [protocolComponent, username, password, hostname, port, pathname, search, hash]
    }

    /// "Hostname pattern is an IPv6 address": starts with `[`, `{[` or `\[`.
    static func hostnamePatternIsIPv6(_ input: String) -> Bool {
        let scalars = Array(input.unicodeScalars.prefix(2))
        guard scalars.count == 2 else { return false }
        return scalars[0] == "[" || ((scalars[0] == "{" || scalars[0] == "\\") && scalars[1] == "[")
    }

    /// The normalized pattern string of the component called `name` (one of
    /// ``URLPatternInit/componentNames``), as the `protocol` … `hash` getters give it.
    public func patternString(_ name: String) -> String? {
        guard let index = URLPatternInit.componentNames.firstIndex(of: name), index < components.count else {
            return nil
        }
        return components[index].patternString
    }

    /// The first component matched by the regex engine (a regexp group `(…)`, or wildcards and
    /// groups the fast path cannot take) whose program has more than `maxStates` VM states, that
    /// count, and whether a regexp group is the cause; `port` is left out (at most 5 digits).
    /// Not only regexp groups: every `*` and `:name` is a capture the engine carries along each
    /// step, so 3,000 of them made one 50,000-step budget cost a second (outside attack 8).
    package func oversizedRegexpComponent(maxStates: Int) -> (name: String, states: Int, regexpGroups: Bool)? {
        for (index, component) in components.enumerated()
        where (component.hasRegExpGroups || component.fastPath == nil) && component.regex.stateCount > maxStates {
            let name = index < URLPatternInit.componentNames.count ? URLPatternInit.componentNames[index] : "?"
            if name != "port" { return (name, component.regex.stateCount, component.hasRegExpGroups) }
        }
        return nil
    }

    /// Whether any component has a regexp group `(…)`.
    public var hasRegExpGroups: Bool { components.contains { $0.hasRegExpGroups } }

    /// Whether `input` matches.
    /// - Throws: ``URLPatternError`` only when the arguments do not fit (a base URL beside a dictionary).
    public func test(_ input: URLPatternInput, baseURL: String? = nil) throws(URLPatternError) -> Bool {
        // exec() without its result: the components answer without making group strings.
        guard let values = try Self.componentValues(input, baseURL: baseURL) else { return false }
        for (index, component) in components.enumerated() where !component.matches(index < values.count ? values[index] : "") {
            return false
        }
        return true
    }

    /// The match of `input` ("match"), or nil when it does not match or does not parse as a URL.
    /// - Throws: ``URLPatternError`` only when the arguments do not fit (a base URL beside a dictionary).
    public func exec(_ input: URLPatternInput, baseURL: String? = nil) throws(URLPatternError) -> URLPatternResult? {
        guard let values = try Self.componentValues(input, baseURL: baseURL) else { return nil }
        return match(values, inputs: baseURL.map { [input, .string($0)] } ?? [input])
    }

    /// The eight strings `input` is matched on, or nil when it is not a URL (or its base is not).
    private static func componentValues(_ input: URLPatternInput, baseURL: String?) throws(URLPatternError) -> [String]? {
        switch input {
        case .dictionary(let dictionary):
            if baseURL != nil {
                throw URLPatternError(.arguments, "a base URL goes inside the dictionary ('baseURL'), not beside it")
            }
            guard let applied = try? dictionary.processed(as: .url, defaults: "") else { return nil }
            return URLPatternInit.componentNames.map { applied[component: $0] ?? "" }
        case .string(let string):
            var base: URLRecord? = nil
            if let baseURL {
                guard let parsed = try? URLRecord.parse(baseURL) else { return nil }
                base = parsed
            }
            guard let url = try? URLRecord.parse(string, base: base) else { return nil }
            return componentValues(url)
        }
    }

    /// The match of an already parsed URL (what the policy path has in hand); its inputs are
    /// the URL's serialization.
    public func exec(_ url: URLRecord) -> URLPatternResult? {
        match(Self.componentValues(url), inputs: [.string(url.href)])
    }

    /// The eight strings a URL is matched on.
    package static func componentValues(_ url: URLRecord) -> [String] {
        [
            url.scheme, url.username, url.password, url.hostname, url.portString, url.pathname, url.query ?? "",
            url.fragment ?? "",
        ]
    }

    /// This pattern with the match-form pathname and search a policy's match-form reading uses
    /// (see ``matchFormPathname``).
    package func withMatchForms() throws(URLPatternError) -> URLPattern {
        var pattern = self
        if Self.searchIndex < components.count {
            pattern.matchFormPathname = try components[Self.pathnameIndex].matchFormCopy("pathname")
            pattern.matchFormSearch = try components[Self.searchIndex].matchFormCopy("search")
        }
        return pattern
    }

    /// ``match(_:inputs:)`` with every regex run charged to `budget`: `.undecided` when a run
    /// was stopped there (the caller fails closed; see ``URLPatternStepBudget``). `matchForm`:
    /// the values are the match form's, so the match-form pathname applies.
    package func match(
        _ values: [String], inputs: [URLPatternInput], budget: URLPatternStepBudget, matchForm: Bool = false
    ) -> URLPatternMatchOutcome {
        var results: [(name: String, result: URLPatternComponentResult)] = []
        results.reserveCapacity(components.count)
        for index in components.indices {
            let written = components[index]
            let value = index < values.count ? values[index] : ""
            let respelled = index == Self.pathnameIndex ? matchFormPathname : index == Self.searchIndex ? matchFormSearch : nil
            // The match form compares the respelled component; the standard reading either
            // spelling (so neither reading misses what the other spelling names).
            let first = matchForm ? respelled ?? written : written
            guard var decided = first.exec(value, budget: budget) else { return .undecided }
            if decided == nil, !matchForm, let respelled {
                guard let second = respelled.exec(value, budget: budget) else { return .undecided }
                decided = second
            }
            guard let result = decided else { return .unmatched }
            results.append((URLPatternInit.componentNames[index], result))
        }
        return .matched(URLPatternResult(inputs: inputs, components: results))
    }

    /// ``match(_:inputs:budget:matchForm:)`` without building the result: whether the values
    /// match (nil = a run was stopped at the budget). What the policy path asks, per candidate.
    package func test(_ values: [String], budget: URLPatternStepBudget, matchForm: Bool) -> Bool? {
        for index in components.indices {
            let value = index < values.count ? values[index] : ""
            let respelled = index == Self.pathnameIndex ? matchFormPathname : index == Self.searchIndex ? matchFormSearch : nil
            let first = matchForm ? respelled ?? components[index] : components[index]
            guard var matched = first.matches(value, budget: budget) else { return nil }
            if !matched, !matchForm, let respelled {
                guard let second = respelled.matches(value, budget: budget) else { return nil }
                matched = second
            }
            if !matched { return false }
        }
        return true
    }

    /// Matches the eight component strings (in ``URLPatternInit/componentNames`` order).
    func match(_ values: [String], inputs: [URLPatternInput]) -> URLPatternResult? {
        var results: [(name: String, result: URLPatternComponentResult)] = []
        results.reserveCapacity(components.count)
        for (index, component) in components.enumerated() {
            let value = index < values.count ? values[index] : ""
            guard let result = component.exec(value) else { return nil }
            results.append((URLPatternInit.componentNames[index], result))
        }
        return URLPatternResult(inputs: inputs, components: results)
    }
}
