/// One `pathPatterns` entry: `*` matches any run of bytes (across `/`), `?` exactly one,
/// everything else literally, against the whole comparison form of the path.
///
/// The pattern is reduced to match form by the same path parser as requests (so `/A/./b*`
/// means what `/A/b*` means in a URL); wildcards survive that reduction because `*` is
/// never percent-encoded in a path and `?` is swapped for a placeholder (`%00`, which
/// patterns may not contain) before parsing and swapped back after.
public struct PathPattern: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case literal([UInt8])
        case anyRun
        case anyOne
    }

    /// The pattern in match form, as shown to users (`/admin/*`).
    public let text: String
    let tokens: [Token]
    /// The bytes before the first wildcard: every path the pattern matches starts with them.
    let literalPrefix: String
    let caseSensitive: Bool

    /// The `%00` placeholder a `?` wildcard travels as through the path parser.
    private static let placeholder: [UInt8] = Array("%00".utf8)

    /// Compiles a configured pattern, or says why it cannot be one.
    static func compile(_ pattern: String, caseSensitive: Bool) -> Result<PathPattern, PatternError> {
        guard pattern.hasPrefix("/") else {
            return .failure(PatternError("a path pattern must start with \"/\" (use \"/*\" for every path)"))
        }
        guard !pattern.contains("#") else { return .failure(PatternError("a path pattern must not contain \"#\"")) }
        guard !pattern.contains("%00") else {
            return .failure(PatternError("a path pattern must not contain \"%00\""))
        }
        let carried = pattern.replacing("?", with: "%00")
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
        let shown = matchPath.text.replacing("%00", with: "?")
        return .success(
            PathPattern(
                text: shown, tokens: tokens, literalPrefix: String(decoding: prefix, as: UTF8.self),
                caseSensitive: caseSensitive))
    }

    /// Whether the whole path (in match form) matches.
    ///
    /// Greedy with one backtrack point (the last `*`): linear in the path for each `*`,
    /// never exponential, whatever the pattern.
    func matches(_ path: MatchPath) -> Bool {
        var subject = caseSensitive ? path.textForm : path.foldedForm
        return subject.withUTF8 { matches(bytes: $0) }
    }

    private func matches(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var tokenIndex = 0
        var position = 0
        var resume: (token: Int, position: Int)?
        while true {
            if tokenIndex == tokens.count {
                if position == bytes.count { return true }
            } else {
                switch tokens[tokenIndex] {
                case .anyRun:
                    resume = (tokenIndex + 1, position)
                    tokenIndex += 1
                    continue
                case .anyOne:
                    if position < bytes.count {
                        tokenIndex += 1
                        position += 1
                        continue
                    }
                case .literal(let literal):
                    if position + literal.count <= bytes.count,
                        literal.indices.allSatisfy({ bytes[position + $0] == literal[$0] })
                    {
                        tokenIndex += 1
                        position += literal.count
                        continue
                    }
                }
            }
            // Mismatch: let the last `*` swallow one more byte, or fail.
            guard let saved = resume, saved.position < bytes.count else { return false }
            resume = (saved.token, saved.position + 1)
            tokenIndex = saved.token
            position = saved.position + 1
        }
    }

    /// Whether the pattern has no wildcard (then it is an exact path).
    var isLiteral: Bool { tokens.allSatisfy { if case .literal = $0 { true } else { false } } }

    /// The whole-segment part of the literal prefix, folded: every matching path has it as a
    /// leading sub-path (`/api/v*` → `/api`, `/admin/*` → `/admin`, `/a*` → `/`), which is
    /// what ``ChainIndex`` files the handler under.
    var indexKey: String {
        let folded = asciiLowercased(literalPrefix)
        if isLiteral { return folded }
        guard let slash = folded.utf8.lastIndex(of: UInt8(ascii: "/")), slash != folded.startIndex else { return "/" }
        return String(folded[..<slash])
    }
}
