import JSONSupport

/// `match.urlPatterns`: WHATWG URL patterns a request's URL is matched against (issue 31).
///
/// Each entry is a whole-URL pattern string with a scheme (`"https://*.example.com/admin/*"`)
/// or a `URLPatternInit` object (`{"pathname": "/admin/*", "search": "token=*"}`); the condition
/// holds when any entry matches. Case follows `match.caseSensitive` (default: ignore case, as
/// for `pathPatterns`), which the standard's `ignoreCase` applies to pathname, search and hash.
///
/// What a pattern is matched against depends on the reading the chain decides (see
/// ``CanonicalRequest/standardURLReading``): in the usual readings, the URL with its host and
/// path in the comparison forms every other condition uses (``CanonicalRequest/matchHost``,
/// ``CanonicalRequest/matchPath``: dot segments, `;` parameters and encoded unreserved
/// characters resolved as servers resolve them); in one more reading, the URL exactly as the
/// standard reads it. The chain is decided in each, and where they differ the one that cancels
/// wins, so `urlPatterns` is never easier to dodge than `pathPatterns` nor than the standard.
package enum URLPatternCondition {
    /// The members an object entry may have: the components and `baseURL`.
    static let objectKeys = URLPatternInit.componentNames + ["baseURL"]

    /// Decodes `match.urlPatterns`, reporting each bad entry at its pointer.
    static func decode(
        _ config: ConfigObject, caseSensitive: Bool, into conditions: inout RequestMatcher.Conditions,
        diagnostics: inout ConfigDiagnostics
    ) {
        guard let value = config.object["urlPatterns"] else { return }
        guard case .array(let elements) = value, !elements.isEmpty else {
            diagnostics.report(
                config.pointer.appending("urlPatterns"),
                "expected a non-empty array of URL pattern strings or URLPatternInit objects, got \(value.kindName)")
            return
        }
        var patterns: [URLPattern] = []
        let options = URLPattern.Options(ignoreCase: !caseSensitive)
        for (index, element) in elements.enumerated() {
            let pointer = config.pointer(to: "urlPatterns", index)
            let input: URLPatternInput
            let written: String
            switch element {
            case .string(let text):
                input = .string(text)
                written = text
            case .object(let object):
                let entry = ConfigObject(object, at: pointer)
                entry.checkKeys(allowed: objectKeys, diagnostics: &diagnostics)
                guard case .dictionary(let dictionary)? = try? URLPatternInput(json: element) else {
                    diagnostics.report(pointer, "every member of a URLPatternInit object must be a string")
                    continue
                }
                input = .dictionary(dictionary)
                written = JSONValue.object(object).compactText
            default:
                diagnostics.report(
                    pointer, "expected a URL pattern string or a URLPatternInit object, got \(element.kindName)")
                continue
            }
            do throws(URLPatternError) {
                // The match-form reading compares the pathname's and search's fixed text decoded
                // as match forms are (`/%61dmin/*` is `/admin/*` there); the standard one as written.
                let pattern = try URLPattern(input, options: options).withMatchForms()
                if let (name, states, regexpGroups) = pattern.oversizedRegexpComponent(
                    maxStates: URLPatternStepBudget.maxRegexpComponentStates)
                {
                    let at: JSONPointer
                    if case .object(let object) = element, object[name] != nil {
                        at = pointer.appending(name)
                    } else {
                        at = pointer
                    }
                    diagnostics.report(
                        at, oversizeMessage(written, component: name, states: states, regexpGroups: regexpGroups))
                    continue
                }
                patterns.append(pattern)
                conditions.record(.urlPatterns, index, written, .urlPattern(pattern))
            } catch {
                var message = "\(written): \(error)"
                if error.kind == .arguments, case .string = element {
                    message +=
                        " (write a whole URL pattern such as \"https://example.com/path/*\", or an object such as {\"pathname\": \"/path/*\"})"
                }
                diagnostics.report(pointer, message)
            }
        }
        conditions.urlPatterns = patterns
    }
}

extension URLPatternCondition {
    /// Why a pattern whose regexp group makes a component's program too big is refused.
    static func oversizeMessage(_ written: String, component: String, states: Int, regexpGroups: Bool = true) -> String {
        let cap = URLPatternStepBudget.maxRegexpComponentStates
        let budget = URLPatternStepBudget.stepsPerDecision
        guard regexpGroups else {
            return "\(written): the \(component) pattern's wildcards and groups compile to \(states) matcher states, over "
                + "the cap of \(cap) for a component as long as the URL: each `*` and `:name` is a capture carried along "
                + "every step of a decision's \(budget); use fewer of them, or split the pattern into several"
        }
        return "\(written): the \(component) pattern's regexp group compiles to \(states) matcher states, over the cap of "
            + "\(cap) for a component as long as the URL (up to \(NavigationRequest.maximumURLLength) bytes): matching "
            + "costs up to 2 × states steps per character and a decision may take \(budget) steps in all; write a "
            + "smaller expression (fewer or smaller counted repetitions such as {5000}), or match the text with "
            + "fixed text, :name groups and * wildcards"
    }

    /// Whether `patterns` hold for `request` within its decision's regexp budget
    /// (``CanonicalRequest/regexBudget``): true when one matches; when none does but a run was
    /// stopped at the budget, `undecidedHolds`, the reading that fails closed for the handler
    /// (true for one that cancels, false for an allow-list; see ``ChainLink``).
    static func holds(_ patterns: [URLPattern], _ request: CanonicalRequest, undecidedHolds: Bool) -> Bool {
        let budget = request.regexBudget ?? URLPatternStepBudget()
        let values = budget.values(for: request)
        var undecided = false
        for pattern in patterns {
            switch pattern.test(values, budget: budget, matchForm: !request.readsURLAsStandard) {
            case true?: return true
            case false?: continue
            case nil: undecided = true
            }
        }
        return undecided && undecidedHolds
    }
}

extension URLPattern {
    /// Whether the pattern matches `request` in its reading (see ``URLPatternCondition``), for
    /// explain and coverage (a budget of its own; a stopped run counts as a match here: these
    /// only describe a handler the chain already matched).
    func matches(_ request: CanonicalRequest) -> Bool {
        switch matchOutcome(request, budget: URLPatternStepBudget()) {
        case .matched, .undecided: true
        case .unmatched: false
        }
    }

    /// The match of `request` in its reading, for explain; nil when none (or not decided
    /// within a budget of its own).
    func matchResult(_ request: CanonicalRequest) -> URLPatternResult? {
        guard case .matched(let result) = matchOutcome(request, budget: URLPatternStepBudget()) else { return nil }
        return result
    }

    /// The match of `request` in its reading with every regex run charged to `budget`.
    func matchOutcome(_ request: CanonicalRequest, budget: URLPatternStepBudget) -> URLPatternMatchOutcome {
        matchOutcome(Self.values(of: request), request, budget: budget)
    }

    /// ``matchOutcome(_:budget:)`` on the request's ``values(of:)``, computed once for all the patterns of a condition.
    func matchOutcome(
        _ values: [String], _ request: CanonicalRequest, budget: URLPatternStepBudget
    ) -> URLPatternMatchOutcome {
        match(values, inputs: [.string(request.href)], budget: budget, matchForm: !request.readsURLAsStandard)
    }

    /// The eight strings a pattern is matched on in `request`'s reading: the URL's own in the
    /// standard reading; else the match forms of host and path, and the query with its
    /// escapes of unreserved characters decoded (`?%74oken=1` is `?token=1`, as servers read it).
    static func values(of request: CanonicalRequest) -> [String] {
        let url = request.url
        if request.readsURLAsStandard {
            var values = componentValues(url)
            // A decoded path's standard reading: that path, as the standard spells it.
            if let pathname = request.decodedStandardPathname { values[pathnameIndex] = pathname }
            return values
        }
        return [
            url.scheme, url.username, url.password, request.matchHostForm.map(String.init) ?? "", url.portString,
            request.matchPath.text, url.query.map(matchFormQuery) ?? "", url.fragment ?? "",
        ]
    }

    /// The query as the match-form reading compares it: escapes of unreserved characters
    /// decoded, other escapes in upper-case hex (``MatchPath/decodeUnreserved(_:)``); the query
    /// itself when it has no `%` (no copy).
    static func matchFormQuery(_ query: String) -> String {
        guard query.utf8.contains(UInt8(ascii: "%")) else { return query }
        let bytes = Array(query.utf8).withUnsafeBufferPointer { MatchPath.decodeUnreserved($0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue {
    /// The value as compact JSON text, for naming an object entry in messages and traces.
    fileprivate var compactText: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.string
    }
}

extension RequestMatcher {
    /// What an explain trace shows as the request's value for a matched entry: for a
    /// `urlPatterns` entry, the URL and, for each component the pattern constrains, the input
    /// it matched and its groups (`pathname "/books/7" id="7"`); for any other entry, the
    /// field's value (``requestValue(_:_:)``).
    func explainedValue(_ entry: MatchEntry, _ request: CanonicalRequest) -> String {
        guard case .urlPattern(let pattern) = entry.test, let result = pattern.matchResult(request) else {
            return requestValue(entry.field, request)
        }
        var parts: [String] = []
        for (name, component) in result.components where pattern.patternString(name) != "*" {
            let groups = component.groups.map { group in
                "\(group.name)=" + (group.value.map { "\"\(Self.capped($0))\"" } ?? "undefined")
            }
            parts.append(([name, "\"\(Self.capped(component.input))\""] + groups).joined(separator: " "))
        }
        let url = Self.capped(request.href)
        return parts.isEmpty ? url : url + " (" + parts.joined(separator: "; ") + ")"
    }

    /// `text` cut to ``explainedLength`` bytes (a trace shows a value per step; see ``explain(_:for:)``).
    private static func capped(_ text: String) -> String {
        guard text.utf8.count > explainedLength else { return text }
        return String(decoding: text.utf8.prefix(explainedLength), as: UTF8.self) + "…"
    }
}
