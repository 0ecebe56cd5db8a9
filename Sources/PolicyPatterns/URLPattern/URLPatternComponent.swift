/// One compiled component of a URL pattern (https://urlpattern.spec.whatwg.org/#component):
/// its normalized pattern string, the regular expression it matches with, and its group names.
///
/// A final class of constants: a policy tries every candidate pattern's 8 components per
/// decision, and copying a struct of ten references retained each of them (most of the cost of
/// 1,000 entries sharing an index key).
package final class URLPatternComponent: Sendable {
    /// The normalized pattern string ("generate a pattern string").
    package let patternString: String
    /// The generated regular expression (anchored), as given to the engine.
    let regexpString: String
    let regex: ECMARegex
    /// Capture group `n` of `regex` is the group called `groupNames[n - 1]`.
    let groupNames: [String]
    /// Whether a `(…)` regexp group occurs in the pattern.
    let hasRegExpGroups: Bool
    /// The parsed part list (fixed text canonicalized): the chain index reads the literal
    /// host and leading path every match needs from it (``URLPattern/indexKeys``).
    package let parts: [PatternPart]
    /// How the component matches without the regex engine, when its parts allow it.
    package let fastPath: URLPatternFastPath?
    /// The dialect the parts were parsed in (to compile a normalized copy).
    package let options: PatternOptions

    private init(
        patternString: String, regexpString: String, regex: ECMARegex, groupNames: [String], hasRegExpGroups: Bool,
        parts: [PatternPart], fastPath: URLPatternFastPath?, options: PatternOptions
    ) {
        self.patternString = patternString
        self.regexpString = regexpString
        self.regex = regex
        self.groupNames = groupNames
        self.hasRegExpGroups = hasRegExpGroups
        self.parts = parts
        self.fastPath = fastPath
        self.options = options
    }

    /// "Compile a component": parse, generate the regular expression and compile it.
    static func compile(
        _ input: String, component: String, options: PatternOptions,
        encode: @escaping PatternParser.EncodingCallback
    ) throws(URLPatternError) -> URLPatternComponent {
        let parts: [PatternPart]
        do throws(URLPatternError) {
            parts = try PatternParser.parse(input, options: options, encode: encode)
        } catch {
            throw error.in(component)
        }
        return try compile(parts, component: component, options: options)
    }

    /// "Compile a component" from its part list: generate the regular expression and compile it.
    static func compile(
        _ parts: [PatternPart], component: String, options: PatternOptions
    ) throws(URLPatternError) -> URLPatternComponent {
        let (regexpString, names) = PatternRegexpGeneration.generate(parts, options: options)
        let regex: ECMARegex
        do throws(ECMARegexError) {
            regex = try ECMARegex(regexpString, ignoreCase: options.ignoreCase, unicodeSets: true)
        } catch {
            let groups = parts.filter { $0.kind == .regexp }.map { "(\($0.value))" }.joined(separator: " ")
            throw URLPatternError(
                .regexp, "the regexp group \(groups) is refused: \(error.message)", component: component)
        }
        return URLPatternComponent(
            patternString: PatternStringGeneration.generate(parts, options: options), regexpString: regexpString,
            regex: regex, groupNames: names, hasRegExpGroups: parts.contains { $0.kind == .regexp }, parts: parts,
            // Fast twin kept (issue 44): through the engine, url-patterns +6.9% instructions, url-patterns-groups +10%.
            fastPath: URLPatternFastPath(parts), options: options)
    }

    /// This (pathname or search) component with its fixed text read as the match form reads a
    /// path or query (``MatchPath/decodeUnreserved(_:)``: `%61` is `a`, other escapes in
    /// upper-case hex), so `/%61dmin/*` matches `/admin/x` in match form as `pathPatterns` do;
    /// nil when that changes nothing. Only the spelling of literal text changes, never what a
    /// group may match.
    func matchFormCopy(_ component: String) throws(URLPatternError) -> URLPatternComponent? {
        func normalized(_ text: String) -> String {
            guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
            let bytes = Array(text.utf8).withUnsafeBufferPointer { MatchPath.decodeUnreserved($0) }
            return String(decoding: bytes, as: UTF8.self)
        }
        let newParts = parts.map { part in
            var part = part
            if part.kind == .fixedText { part.value = normalized(part.value) }
            part.prefix = normalized(part.prefix)
            part.suffix = normalized(part.suffix)
            return part
        }
        guard newParts != parts else { return nil }
        return try Self.compile(newParts, component: component, options: options)
    }

    /// The component's match result for `input`, or nil when it does not match.
    package func exec(_ input: String) -> URLPatternComponentResult? {
        if let fastPath { return fastPath.exec(input, ignoreCase: regex.ignoresCase, names: groupNames) }
        return result(input, regex.exec(input))
    }

    /// ``exec(_:)`` with its regex run charged to `budget`: `.none` when the run was stopped
    /// there (not decided); a fast path costs no steps.
    func exec(_ input: String, budget: URLPatternStepBudget) -> URLPatternComponentResult?? {
        if let fastPath { return .some(fastPath.exec(input, ignoreCase: regex.ignoresCase, names: groupNames)) }
        guard let captures = budget.exec(regex, input) else { return .none }
        return .some(result(input, captures))
    }

    /// ``exec(_:)`` on the Pike VM even where a fast path or the one-pass matcher applies (the
    /// reference both are tested and fuzzed against).
    package func engineExec(_ input: String) -> URLPatternComponentResult? {
        result(input, regex.pikeVMExec(input).result)
    }

    /// Whether the component runs on the one-pass matcher (``RegexOnePass``): no fast path,
    /// and an expression where the next scalar decides every choice.
    package var runsOnePass: Bool { fastPath == nil && regex.isOnePass }

    /// Whether `input` matches (``exec(_:)`` without building the result).
    func matches(_ input: String) -> Bool {
        if let fastPath { return fastPath.matches(input, ignoreCase: regex.ignoresCase) }
        return regex.matches(input)
    }

    /// Whether `input` matches, its regex run charged to `budget`: nil when the run was
    /// stopped there. Builds no result (the policy path only needs the answer).
    func matches(_ input: String, budget: URLPatternStepBudget) -> Bool? {
        if let fastPath { return fastPath.matches(input, ignoreCase: regex.ignoresCase) }
        return budget.matches(regex, input)
    }

    /// The groups of a regex run's captures (nil = no match).
    private func result(_ input: String, _ captures: [String?]?) -> URLPatternComponentResult? {
        guard let captures else { return nil }
        var groups: [URLPatternGroup] = []
        groups.reserveCapacity(groupNames.count)
        for (offset, name) in groupNames.enumerated() {
            let index = offset + 1
            groups.append(URLPatternGroup(name: name, value: index < captures.count ? captures[index] : nil))
        }
        return URLPatternComponentResult(input: input, groups: groups)
    }

    /// "Protocol component matches a special scheme".
    package var matchesSpecialScheme: Bool {
        URLPatternCanonicalization.specialSchemes.contains { regex.exec($0) != nil }
    }
}
