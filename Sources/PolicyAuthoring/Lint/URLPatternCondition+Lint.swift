// Beside the other lint checks rather than in the engine's URLPatternCondition.swift: lint is an
// authoring tool (its warnings are this module's type), and an app's engine never runs it.
extension URLPatternCondition {
    /// Lint: an entry that can never match a URL a web view navigates to: for a pattern whose
    /// protocol takes a special scheme (`http`, `https`, …), a pathname that cannot start with
    /// "/" (every such URL's path does), such as `{"pathname": "admin/*"}`.
    static func neverMatching(_ matcher: RequestMatcher, at pointer: JSONPointer) -> [LintWarning] {
        matcher.entries.compactMap { entry in
            guard case .urlPattern(let pattern) = entry.test,
                let index = URLPatternInit.componentNames.firstIndex(of: "pathname"),
                index < pattern.components.count, pattern.components.first?.matchesSpecialScheme == true,
                let first = pattern.components[index].patternString.unicodeScalars.first,
                !"/*{(:\\".unicodeScalars.contains(first)
            else { return nil }
            return LintWarning(
                kind: "urlPatternNeverMatches", pointer: pointer.appending("urlPatterns").appending(entry.index),
                message: "\(entry.written): the pathname pattern \"\(pattern.components[index].patternString)\" does not "
                    + "start with \"/\", and the path of an http(s) URL always does, so it never matches; write \"/"
                    + pattern.components[index].patternString + "\"")
        }
    }
}
