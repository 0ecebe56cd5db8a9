/// One `pathPatterns` entry: `*` matches any run of bytes (across `/`), `?` exactly one,
/// everything else literally, against the whole comparison form of the path. A pattern that
/// ends in `/*` also matches the directory itself (`/admin/*` matches `/admin/`, which
/// compares as `/admin`), see ``matches(_:)``.
///
/// The pattern is reduced to match form by the same path parser as requests (so `/A/./b*`
/// means what `/A/b*` means in a URL); wildcards survive that reduction because `*` is
/// never percent-encoded in a path and `?` is swapped for a placeholder (`%00`, which
/// patterns may not contain) before parsing and swapped back after.
public struct PathPattern: Sendable, Equatable {
    package enum Token: Sendable, Equatable {
        case literal([UInt8])
        case anyRun
        case anyOne
    }

    /// The pattern in match form, as shown to users (`/admin/*`).
    public let text: String
    package let tokens: [Token]
    /// The bytes before the first wildcard: every path the pattern matches starts with them.
    package let literalPrefix: String
    package let caseSensitive: Bool
    /// The tokens compiled for matching.
    let glob: Glob
    /// For a pattern ending in `/*`, the pattern without it (`/admin/*` → `/admin`): the
    /// directory itself, which the match form writes without its trailing slash.
    package let directory: Glob?
    /// A whole segment every matching path has somewhere (`/*/secret/*` → `secret`), folded, or
    /// nil; ``ChainIndex`` files patterns whose ``indexKey`` is `/` under it.
    let requiredSegment: String?

    /// The `%00` placeholder a `?` wildcard travels as through the path parser.
    private static let placeholder: [UInt8] = Array("%00".utf8)

    /// Compiles a configured pattern, or says why it cannot be one.
    static func compile(_ pattern: String, caseSensitive: Bool) -> Result<PathPattern, PatternError> {
        guard pattern.hasPrefix("/") else {
            return .failure(PatternError("a path pattern must start with \"/\" (use \"/*\" for every path)"))
        }
        guard !pattern.contains("#") else { return .failure(PatternError("a path pattern must not contain \"#\"")) }
        guard !pattern.contains(substring: "%00") else {
            return .failure(PatternError("a path pattern must not contain \"%00\""))
        }
        let carried = pattern.replacing(every: "?", with: "%00")
        let record: URLRecord
        do {
            record = try URLRecord.parse("http://path.invalid" + carried)
        } catch {
            return .failure(PatternError("not a valid URL path: \(error)"))
        }
        let matchPath = MatchPath(record)
        let bytes = Array((caseSensitive ? matchPath.text : matchPath.folded).utf8)
        var tokens: [Token] = []
        var literal: [UInt8] = []
        var index = 0
        func flush() {
            if !literal.isEmpty { tokens.append(.literal(literal)) }
            literal = []
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "*") {
                flush()
                // `**` means what `*` means; one token keeps matching linear.
                if tokens.last != .anyRun { tokens.append(.anyRun) }
                index += 1
            } else if bytes[index...].starts(with: placeholder) {
                flush()
                tokens.append(.anyOne)
                index += placeholder.count
            } else {
                literal.append(bytes[index])
                index += 1
            }
        }
        flush()
        var prefix: [UInt8] = []
        if case .literal(let first)? = tokens.first { prefix = first }
        let shown = matchPath.text.replacing(every: "%00", with: "?")
        return .success(
            PathPattern(
                text: shown, tokens: tokens, literalPrefix: String(decoding: prefix, as: UTF8.self),
                caseSensitive: caseSensitive, glob: Glob(tokens), directory: directoryForm(tokens).map(Glob.init),
                requiredSegment: longestWholeSegment(tokens)))
    }

    /// `…/*` without the `/*`, unless that leaves nothing (`/*` already matches `/`).
    private static func directoryForm(_ tokens: [Token]) -> [Token]? {
        guard tokens.count >= 2, tokens.last == .anyRun, case .literal(var literal) = tokens[tokens.count - 2],
            literal.last == UInt8(ascii: "/")
        else { return nil }
        literal.removeLast()
        var form = Array(tokens.dropLast(2))
        if !literal.isEmpty { form.append(.literal(literal)) }
        return form.isEmpty ? nil : form
    }

    /// The longest segment that a literal token holds whole: between two `/` of the literal,
    /// or after its last `/` when the literal ends the pattern. Match-form paths have `/` only
    /// as separators, so such bytes are one whole segment of every path the pattern matches
    /// (and of the ``directoryForm(_:)``, which only turns `/seg/` at its end into `/seg` at
    /// the end of the path).
    private static func longestWholeSegment(_ tokens: [Token]) -> String? {
        var best: ArraySlice<UInt8> = []
        for (position, token) in tokens.enumerated() {
            guard case .literal(let literal) = token else { continue }
            let slashes = literal.indices.filter { literal[$0] == UInt8(ascii: "/") }
            var bounds = zip(slashes, slashes.dropFirst()).map { ($0 + 1, $1) }
            if position == tokens.count - 1, let last = slashes.last { bounds.append((last + 1, literal.count)) }
            for (start, end) in bounds where end - start > best.count { best = literal[start..<end] }
        }
        return best.isEmpty ? nil : asciiLowercased(String(decoding: best, as: UTF8.self))
    }

    /// Whether the whole path (in match form) matches.
    ///
    /// A pattern that ends in `/*` also matches the path without that `/*`: match forms never
    /// end in `/`, so `/admin/` (the index page, what browsers send) and `/admin//`,
    /// `/admin/.`, `/admin/;x` all compare as `/admin`, and `/admin/*` must cover them.
    /// Each form is matched chunk by chunk in one left-to-right pass (``Glob``): linear in the
    /// path whatever the pattern.
    package func matches(_ path: MatchPath) -> Bool {
        var subject = caseSensitive ? path.textForm : path.foldedForm
        return subject.withUTF8 { bytes in
            glob.matches(bytes) || (directory?.matches(bytes) ?? false)
        }
    }

    /// Whether the pattern has no wildcard (then it is an exact path).
    var isLiteral: Bool { tokens.allSatisfy { if case .literal = $0 { true } else { false } } }

    /// The whole-segment part of the literal prefix, folded: every matching path has it as a
    /// leading sub-path (`/api/v*` → `/api`, `/admin/*` → `/admin`, `/a*` → `/`), which is
    /// what ``ChainIndex`` files the handler under.
    package var indexKey: String {
        let folded = asciiLowercased(literalPrefix)
        if isLiteral { return folded }
        guard let slash = folded.utf8.lastIndex(of: UInt8(ascii: "/")), slash != folded.startIndex else { return "/" }
        return String(folded[..<slash])
    }
}
