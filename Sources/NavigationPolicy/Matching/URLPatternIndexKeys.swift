/// What every URL a `urlPatterns` entry matches must have, read from its hostname and pathname
/// part lists, so the chain index can file the entry under cheap lookup keys (issue 31).
///
/// Only necessary conditions: a URL the pattern matches always has one of the host keys (or
/// the host is unkeyed) and a path under the path key (or the path is unkeyed). Protocol, port,
/// search and hash are not keyed; the full match checks them.
struct URLPatternIndexKeys: Sendable, Equatable {
    /// Hosts a match may have exactly (ASCII-lower-cased).
    var exactHosts: [String] = []
    /// Parent domains a match's host may have (``MatchHost/anyParentDomain(of:_:)``), lower-cased.
    var hostSuffixes: [String] = []
    /// Whether the host is unconstrained as far as the index can tell (then the lists above are empty).
    var anyHost: Bool { exactHosts.isEmpty && hostSuffixes.isEmpty }
    /// A leading whole-segment part every matched path starts with (lower-cased, starts with
    /// `/`); nil when the path is unconstrained as far as the index can tell.
    var pathPrefix: String?

    /// Keys that an ASCII fold of both sides keeps sound: patterns are canonicalized and URL
    /// hosts and paths are ASCII, where the regexp's Unicode `ignoreCase` is ASCII folding. Keys
    /// with other bytes are dropped (the component is unkeyed) rather than risk a miss.
    /// No keys: the entry is a candidate for every request.
    init() {}

    init(hostname: [PatternPart], pathname: [PatternPart]) {
        (exactHosts, hostSuffixes) = Self.hostKeys(hostname)
        if !(exactHosts + hostSuffixes).allSatisfy(Self.isASCII) {
            exactHosts = []
            hostSuffixes = []
        }
        pathPrefix = Self.pathKey(pathname).flatMap { Self.isASCII($0) ? $0 : nil }
    }

    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    private static func isPlainFixed(_ part: PatternPart) -> Bool {
        part.kind == .fixedText && part.modifier == .none
    }

    /// The host keys: the whole hostname when it is fixed text; else for a fixed tail `T` after
    /// other parts, `T` itself (when what precedes may be empty) and the parent domain after
    /// `T`'s first dot (a host `X + T` with `X` non-empty has it: `*.example.com` → `example.com`).
    private static func hostKeys(_ parts: [PatternPart]) -> ([String], [String]) {
        if parts.allSatisfy(isPlainFixed) { return ([asciiLowercased(parts.map { $0.value }.joined())], []) }
        guard let last = parts.last, isPlainFixed(last), !last.value.isEmpty else { return ([], []) }
        let tail = asciiLowercased(last.value)
        // `{:sub.}?example.com`, `{(…).}example.com`: the tail is a whole parent domain (or the host).
        if parts.count == 2, let first = parts.first, first.kind != .fixedText, first.suffix.hasSuffix("."),
            first.modifier == .none || first.modifier == .optional
        {
            return (first.modifier == .optional ? [tail] : [], [tail])
        }
        if tail.hasPrefix(".") { return tail.count > 1 ? ([], [String(tail.dropFirst())]) : ([], []) }
        guard let dot = tail.firstIndex(of: "."), tail.index(after: dot) < tail.endIndex else { return ([], []) }
        return ([tail], [String(tail[tail.index(after: dot)...])])
    }

    /// The leading fixed text of the pathname, cut back to its last whole segment: a segment is
    /// whole when a `/` follows it in the text, or the text is the whole pattern, or the next
    /// part must start with `/` (its prefix, as in `/books/:id`).
    private static func pathKey(_ parts: [PatternPart]) -> String? {
        let leading = parts.prefix(while: isPlainFixed)
        let text = leading.map { $0.value }.joined()
        guard text.hasPrefix("/") else { return nil }
        let next = parts.dropFirst(leading.count).first
        let whole =
            next == nil || text.hasSuffix("/")
            || (next.map { $0.prefix.hasPrefix("/") && ($0.modifier == .none || $0.modifier == .oneOrMore) } ?? false)
        guard !whole, let slash = text.lastIndex(of: "/") else { return asciiLowercased(text) }
        return asciiLowercased(String(text[...slash]))
    }
}

extension URLPattern {
    /// The chain index's keys for this pattern (see ``URLPatternIndexKeys``).
    var indexKeys: URLPatternIndexKeys {
        guard let hostname = URLPatternInit.componentNames.firstIndex(of: "hostname"),
            let pathname = URLPatternInit.componentNames.firstIndex(of: "pathname"),
            hostname < components.count, pathname < components.count
        else { return URLPatternIndexKeys() }
        return URLPatternIndexKeys(hostname: components[hostname].parts, pathname: components[pathname].parts)
    }

    /// The keys of the match-form reading when its pathname differs from the pattern as
    /// written (``matchFormPathname``): the entry is filed under both, so each reading finds it.
    var matchFormIndexKeys: URLPatternIndexKeys? {
        guard let matchFormPathname, let hostname = URLPatternInit.componentNames.firstIndex(of: "hostname"),
            hostname < components.count
        else { return nil }
        return URLPatternIndexKeys(hostname: components[hostname].parts, pathname: matchFormPathname.parts)
    }
}
