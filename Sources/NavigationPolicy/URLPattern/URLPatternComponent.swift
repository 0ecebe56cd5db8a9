/// One compiled component of a URL pattern (https://urlpattern.spec.whatwg.org/#component):
/// its normalized pattern string, the regular expression it matches with, and its group names.
struct URLPatternComponent: Sendable {
    /// The normalized pattern string ("generate a pattern string").
    let patternString: String
    /// The generated regular expression (anchored), as given to the engine.
    let regexpString: String
    let regex: ECMARegex
    /// Capture group `n` of `regex` is the group called `groupNames[n - 1]`.
    let groupNames: [String]
    /// Whether a `(…)` regexp group occurs in the pattern.
    let hasRegExpGroups: Bool
    /// The parsed part list (fixed text canonicalized): the chain index reads the literal
    /// host and leading path every match needs from it (``URLPattern/indexKeys``).
    let parts: [PatternPart]

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
            regex: regex, groupNames: names, hasRegExpGroups: parts.contains { $0.kind == .regexp }, parts: parts)
    }

    /// The component's match result for `input`, or nil when it does not match.
    func exec(_ input: String) -> URLPatternComponentResult? {
        guard let captures = regex.exec(input) else { return nil }
        var groups: [URLPatternGroup] = []
        groups.reserveCapacity(groupNames.count)
        for (offset, name) in groupNames.enumerated() {
            let index = offset + 1
            groups.append(URLPatternGroup(name: name, value: index < captures.count ? captures[index] : nil))
        }
        return URLPatternComponentResult(input: input, groups: groups)
    }

    /// "Protocol component matches a special scheme".
    var matchesSpecialScheme: Bool {
        URLPatternCanonicalization.specialSchemes.contains { regex.exec($0) != nil }
    }
}
