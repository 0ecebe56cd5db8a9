/// Whether one `pathPatterns` entry matches every path a later handler's path condition
/// accepts, for the unreachable-handler lint. Proven, never guessed: `validate --strict` fails
/// CI on the warning, so a pattern that merely looks wider (`/admin/*` before a prefix it
/// might not cover) must not raise it. Only a pattern that is one literal then one `*`
/// (`/admin/*`, `/adm*`, `/*`) is compared: its `*` takes any bytes, across `/`, so it matches
/// exactly the paths that start with the literal (and, ending in `/*`, the directory itself).
/// Any other outer pattern is treated as covering nothing, which can only miss a warning.
extension PathPattern {
    /// The literal before a final `*` when the pattern is exactly that, else nil.
    private var literalThenAnyRun: [UInt8]? {
        guard tokens.count == 2, case .literal(let literal) = tokens[0], tokens[1] == .anyRun else { return nil }
        return literal
    }

    /// `text` in this pattern's comparison form (folded unless it is case-sensitive).
    private func comparisonBytes(_ text: String) -> [UInt8] {
        Array((caseSensitive ? text : asciiLowercased(text)).utf8)
    }

    /// Whether this pattern matches `prefix` (a `pathPrefixes` entry in match form) and every
    /// path under it (`prefix/…`): what the entry accepts.
    func coversSubtree(_ prefix: String) -> Bool {
        guard let literal = literalThenAnyRun else { return false }
        // Paths under `/a` start with `/a/`; paths under `/` start with `/`.
        let below = comparisonBytes(prefix.hasSuffix("/") ? prefix : prefix + "/")
        return below.starts(with: literal) && matches(MatchPath(pathname: prefix, isOpaque: false))
    }

    /// Whether this pattern matches every path `inner` matches: every such path starts with
    /// the bytes before `inner`'s first wildcard (less the final `/` when `inner` also matches
    /// its directory, `/a/*` matching `/a`).
    func coversPattern(_ inner: PathPattern) -> Bool {
        guard let literal = literalThenAnyRun else { return false }
        var guaranteed = inner.literalPrefix
        if inner.directory != nil, guaranteed.hasSuffix("/") { guaranteed.removeLast() }
        return comparisonBytes(guaranteed).starts(with: literal)
    }
}
