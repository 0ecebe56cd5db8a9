/// What one `urlPatterns` entry asks of a request in the plain (match-form) reading, in the
/// analysis's own fields: a set of schemes, a union of host terms, whether the port must be
/// empty, and a pathname term. The engine's plain reading matches a pattern on the scheme,
/// userinfo, match-form host, port, match-form path, match-form query and fragment
/// (``URLPattern/values(of:)``); a pattern is cut into regions exactly when every component
/// the analysis has no field for (username, password, search, hash) is `*`, the port is `*`
/// or empty, and the scheme, host and path languages are ones the regions model.
///
/// A pattern string with a host and no port has the empty port (`https://a.example/*` does not
/// match `https://a.example:8443/x`), so "the port is empty" is part of the host field
/// (``HostRegions/noPortTerm()``): without it a pattern would look wider than it is.
struct URLPatternShape {
    /// Schemes the protocol component accepts; nil: any.
    var schemes: [String]?
    /// Host entries whose union is the hostname component's language; nil: any host (or none).
    var hosts: [MatchEntry.Test]?
    /// Whether the port must be empty (the URL's default, or none).
    var noPort: Bool
    /// The pathname's parts as the plain reading compares them; nil: any path.
    var pathname: [PatternPart]?
    /// Whether the pathname is compared ignoring case (`match.caseSensitive` false).
    var ignoreCase: Bool

    /// The shape of `pattern`, or why it is not cut into regions.
    static func of(_ pattern: URLPattern) -> Result<URLPatternShape, Unmodelled> {
        let components = pattern.components
        guard components.count == URLPatternInit.componentNames.count else {
            return .failure(Unmodelled("its components are not the standard eight"))
        }
        if pattern.hasRegExpGroups {
            return .failure(Unmodelled("it has regexp groups, whose language no region analysis decides in general"))
        }
        for (index, name) in [(1, "username"), (2, "password"), (6, "search"), (7, "hash")]
        where !components[index].isAny {
            let what = name == "search" ? "the analysis has no query field" : "the analysis has no field for it"
            return .failure(Unmodelled("its \(name) pattern \"\(components[index].patternString)\" is not \"*\" (\(what))"))
        }
        var shape = URLPatternShape(schemes: nil, hosts: nil, noPort: false, pathname: nil, ignoreCase: false)
        let port = components[4].patternString
        if port == "" {
            shape.noPort = true
        } else if port != "*" {
            return .failure(Unmodelled("its port pattern \"\(port)\" is neither \"*\" nor empty"))
        }
        if !components[0].isAny {
            guard let schemes = finiteLanguage(components[0].parts) else {
                return .failure(
                    Unmodelled("its protocol pattern \"\(components[0].patternString)\" is not a finite list of schemes"))
            }
            // A scheme is lower-case ASCII: other strings match no URL, and are left out.
            shape.schemes = schemes.filter(isScheme).sorted()
        }
        if !components[3].isAny {
            guard let hosts = hostTerms(components[3].parts) else {
                return .failure(
                    Unmodelled(
                        "its hostname pattern \"\(components[3].patternString)\" is not a host, \"*.\" and a domain, "
                            + "or \"{*.}?\" and a domain"))
            }
            shape.hosts = hosts
        }
        let pathname = pattern.matchFormPathname ?? components[URLPattern.pathnameIndex]
        if !pathname.isAny {
            shape.pathname = pathname.parts
            shape.ignoreCase = pathname.options.ignoreCase
        }
        return .success(shape)
    }

    /// Why a pattern is not cut into regions.
    struct Unmodelled: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Every string of a component made of fixed text, each part required or optional (`http{s}?`); nil otherwise.
    private static func finiteLanguage(_ parts: [PatternPart]) -> [String]? {
        var strings: Set<String> = [""]
        for part in parts {
            guard part.kind == .fixedText else { return nil }
            switch part.modifier {
            case .none: strings = Set(strings.map { $0 + part.value })
            case .optional: strings.formUnion(strings.map { $0 + part.value })
            case .zeroOrMore, .oneOrMore: return nil
            }
            if strings.count > 16 { return nil }
        }
        return Array(strings)
    }

    private static func isScheme(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// The hostname's language as host entries, compared with the match-form host as `hosts`
    /// compares it: a fixed host is ``MatchEntry/Test/host(_:)``; `*` then `.domain` is every
    /// host ending in `.domain`, which is ``MatchEntry/Test/hostWildcard(_:)``; `{*.}?domain`
    /// is both. Anything else (a `:label` group, a wildcard inside) is nil.
    private static func hostTerms(_ parts: [PatternPart]) -> [MatchEntry.Test]? {
        var merged: [PatternPart] = []
        for part in parts {
            if part.kind == .fixedText, part.modifier == .none, let last = merged.last, last.kind == .fixedText,
                last.modifier == .none
            {
                merged[merged.count - 1].value += part.value
            } else {
                merged.append(part)
            }
        }
        func domain(_ text: String) -> String? {
            // A last label of digits would make `qz0.<domain>` no host at all (an IPv4 parse), so
            // the wildcard's witnesses would miss hosts: such suffixes are left to "unknown".
            guard !text.isEmpty, let last = text.split(separator: ".").last, !last.allSatisfy({ $0.isNumber || $0 == "x" })
            else { return nil }
            return text
        }
        switch merged.count {
        case 1:
            guard let only = merged.first, only.kind == .fixedText, only.modifier == .none, !only.value.isEmpty else {
                return nil
            }
            return [.host(only.value)]
        case 2:
            let wildcard = merged[0]
            let fixed = merged[1]
            guard wildcard.kind == .fullWildcard, wildcard.prefix.isEmpty, fixed.kind == .fixedText,
                fixed.modifier == .none
            else { return nil }
            if wildcard.suffix.isEmpty, wildcard.modifier == .none, fixed.value.hasPrefix("."),
                let suffix = domain(String(fixed.value.dropFirst()))
            {
                return [.hostWildcard(suffix)]
            }
            if wildcard.suffix == ".", let suffix = domain(fixed.value) {
                switch wildcard.modifier {
                case .none: return [.hostWildcard(suffix)]
                case .optional: return [.host(suffix), .hostWildcard(suffix)]
                case .zeroOrMore, .oneOrMore: return nil
                }
            }
            return nil
        default:
            return nil
        }
    }
}

extension URLPatternComponent {
    /// Whether the component is `*`: it matches every value, in either reading.
    var isAny: Bool { patternString == "*" }
}
