/// Concrete URLs a `urlPatterns` entry matches, built from its parts: the regions of the
/// analysis do not model patterns, so a handler filed under one is reached by a URL made
/// from the pattern itself (fixed text kept, each wildcard a fresh label, optional parts
/// left out). Only a guess until the engine decides it, which the analysis always does.
enum URLPatternWitness {
    /// One URL per pattern that has no regexp group (a group's language is not read here).
    static func urls(_ patterns: [URLPattern], fresh: String) -> [String] {
        patterns.compactMap { url($0, fresh: fresh) }
    }

    static func url(_ pattern: URLPattern, fresh: String) -> String? {
        guard !pattern.hasRegExpGroups else { return nil }
        var values: [String: String] = [:]
        for (name, component) in zip(URLPatternInit.componentNames, pattern.components)
        where component.patternString != "*" {
            values[name] = instance(component.parts, fresh: fresh)
        }
        // Any scheme: the one web views navigate with.
        var scheme = values["protocol"] ?? ""
        if scheme.isEmpty || !scheme.unicodeScalars.allSatisfy(isSchemeCharacter) { scheme = "https" }
        let host = values["hostname"] ?? ""
        var path = values["pathname"] ?? ""
        let special = AnalysisDomain.specialSchemes.contains(scheme)
        if special && !path.hasPrefix("/") { path = "/" + path }
        var url = scheme + ":"
        if !host.isEmpty || special {
            url += "//"
            let user = values["username"] ?? ""
            let password = values["password"] ?? ""
            if !user.isEmpty || !password.isEmpty { url += user + (password.isEmpty ? "" : ":" + password) + "@" }
            url += host.isEmpty ? fresh + ".example" : host
            if let port = values["port"], !port.isEmpty { url += ":" + port }
        }
        url += path
        if let search = values["search"], !search.isEmpty { url += "?" + search }
        if let hash = values["hash"], !hash.isEmpty { url += "#" + hash }
        return url
    }

    /// The shortest-looking string the parts match: fixed text as written, a required
    /// wildcard as its prefix, a fresh label and its suffix, an optional or repeated-or-none
    /// part left out.
    private static func instance(_ parts: [PatternPart], fresh: String) -> String {
        var text = ""
        for part in parts {
            switch (part.kind, part.modifier) {
            case (.fixedText, .none), (.fixedText, .oneOrMore): text += part.value
            case (.fixedText, _): continue
            case (_, .optional), (_, .zeroOrMore): continue
            case (.segmentWildcard, _), (.fullWildcard, _), (.regexp, _): text += part.prefix + fresh + part.suffix
            }
        }
        return text
    }

    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || "+-.0123456789".unicodeScalars.contains(scalar)
    }
}
