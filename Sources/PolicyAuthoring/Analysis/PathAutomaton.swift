/// A regular language over the bytes of a match-form path: what one path term (an exact path,
/// a segment prefix, a `pathPatterns` entry, a URLPattern pathname) accepts, written so that
/// ``PathProduct`` can run every term side by side and find each combination of terms some
/// path satisfies.
indirect enum PathLanguage: Sendable {
    case bytes([UInt8])
    case anyByte
    /// One byte other than `/` (a URLPattern segment wildcard is one or more of these).
    case notSlash
    case sequence([PathLanguage])
    case choice([PathLanguage])
    case star(PathLanguage)

    static let empty = PathLanguage.sequence([])

    static func plus(_ language: PathLanguage) -> PathLanguage { .sequence([language, .star(language)]) }
    static func optional(_ language: PathLanguage) -> PathLanguage { .choice([language, .empty]) }

    /// An exact `paths` entry.
    static func exact(_ text: String) -> PathLanguage { .bytes(Array(text.utf8)) }

    /// A `pathPrefixes` entry as ``MatchPath/isCovered(_:byPrefix:)`` reads it: the key itself or
    /// the key followed by `/` and anything (`/` alone covers every path that starts with it).
    static func segmentPrefix(_ key: String) -> PathLanguage {
        let bytes = Array(key.utf8)
        if bytes.count == 1 { return .sequence([.bytes(bytes), .star(.anyByte)]) }
        return .sequence([.bytes(bytes), .optional(.sequence([.bytes([UInt8(ascii: "/")]), .star(.anyByte)]))])
    }

    /// A `pathPatterns` entry as ``PathPattern/matches(_:)`` reads it: its glob, or the
    /// directory form of a pattern that ends in `/*`.
    static func pattern(_ pattern: PathPattern) -> PathLanguage {
        func glob(_ tokens: [PathPattern.Token]) -> PathLanguage {
            .sequence(
                tokens.map { token in
                    switch token {
                    case .literal(let bytes): .bytes(bytes)
                    case .anyRun: .star(.anyByte)
                    case .anyOne: .anyByte
                    }
                })
        }
        let tokens = pattern.tokens
        guard tokens.count >= 2, tokens.last == .anyRun, case .literal(var literal) = tokens[tokens.count - 2],
            literal.last == UInt8(ascii: "/")
        else { return glob(tokens) }
        // The same reduction as `PathPattern.directoryForm`: `/admin/*` also matches `/admin`.
        literal.removeLast()
        var directory = Array(tokens.dropLast(2))
        if !literal.isEmpty { directory.append(.literal(literal)) }
        return directory.isEmpty ? glob(tokens) : .choice([glob(tokens), glob(directory)])
    }

    /// A URLPattern pathname part list (parsed with the pathname options: `/` is the segment
    /// delimiter and the group prefix) as the spec's generated regular expression reads it, or
    /// nil when a part is a regexp group (no finite-state model of an arbitrary expression).
    ///
    /// Greedy and lazy quantifiers accept the same whole strings, so the anchored expression
    /// `^…$` is the language below: a part with a prefix or suffix repeats as
    /// `prefix value (suffix prefix value)* suffix`, and `*` makes that optional.
    static func urlPatternPathname(_ parts: [PatternPart]) -> PathLanguage? {
        var sequence: [PathLanguage] = []
        for part in parts {
            let value: PathLanguage
            switch part.kind {
            case .fixedText:
                let text = PathLanguage.bytes(Array(part.value.utf8))
                sequence.append(Self.apply(part.modifier, to: text))
                continue
            case .segmentWildcard: value = .plus(.notSlash)
            case .fullWildcard: value = .star(.anyByte)
            case .regexp: return nil
            }
            if part.prefix.isEmpty, part.suffix.isEmpty {
                sequence.append(Self.apply(part.modifier, to: value))
                continue
            }
            let prefix = PathLanguage.bytes(Array(part.prefix.utf8))
            let suffix = PathLanguage.bytes(Array(part.suffix.utf8))
            switch part.modifier {
            case .none: sequence.append(.sequence([prefix, value, suffix]))
            case .optional: sequence.append(.optional(.sequence([prefix, value, suffix])))
            case .oneOrMore, .zeroOrMore:
                let repeated = PathLanguage.sequence([prefix, value, .star(.sequence([suffix, prefix, value])), suffix])
                sequence.append(part.modifier == .zeroOrMore ? .optional(repeated) : repeated)
            }
        }
        return .sequence(sequence)
    }

    private static func apply(_ modifier: PatternPart.Modifier, to language: PathLanguage) -> PathLanguage {
        switch modifier {
        case .none: language
        case .optional: .optional(language)
        case .zeroOrMore: .star(language)
        case .oneOrMore: .plus(language)
        }
    }
}

/// A nondeterministic automaton for one ``PathLanguage``, over the path bytes, folded to ASCII
/// lower case first when the term is case-insensitive (its literal bytes are folded when built),
/// as the engine compares `MatchPath.folded` with folded keys.
struct PathNFA: Sendable {
    enum Edge: Sendable, Equatable {
        case byte(UInt8)
        case any
        case notSlash

        func accepts(_ byte: UInt8) -> Bool {
            switch self {
            case .byte(let expected): byte == expected
            case .any: true
            case .notSlash: byte != UInt8(ascii: "/")
            }
        }
    }

    private(set) var edges: [[(Edge, Int32)]] = [[]]
    private(set) var epsilons: [[Int32]] = [[]]
    private(set) var accept: Int32 = 0
    let ignoreCase: Bool

    init(_ language: PathLanguage, ignoreCase: Bool) {
        self.ignoreCase = ignoreCase
        accept = build(language, from: 0)
    }

    private mutating func newState() -> Int32 {
        edges.append([])
        epsilons.append([])
        return Int32(edges.count - 1)
    }

    /// Adds `language` starting at `from`; returns the state reached at its end.
    private mutating func build(_ language: PathLanguage, from: Int32) -> Int32 {
        switch language {
        case .bytes(let bytes):
            var current = from
            for byte in bytes {
                let next = newState()
                edges[Int(current)].append((.byte(ignoreCase ? Self.fold(byte) : byte), next))
                current = next
            }
            return current
        case .anyByte, .notSlash:
            let next = newState()
            edges[Int(from)].append((language.isAny ? .any : .notSlash, next))
            return next
        case .sequence(let parts):
            return parts.reduce(from) { build($1, from: $0) }
        case .choice(let options):
            let end = newState()
            for option in options { epsilons[Int(build(option, from: from))].append(end) }
            return end
        case .star(let body):
            // A fresh loop state: only the body and what follows the star leave it.
            let loop = newState()
            epsilons[Int(from)].append(loop)
            epsilons[Int(build(body, from: loop))].append(loop)
            return loop
        }
    }

    static func fold(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Every byte an edge names (both cases when the term ignores case).
    var namedBytes: Set<UInt8> {
        var bytes: Set<UInt8> = []
        for list in edges {
            for (edge, _) in list {
                guard case .byte(let byte) = edge else { continue }
                bytes.insert(byte)
                if ignoreCase, byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") { bytes.insert(byte & ~0x20) }
            }
        }
        return bytes
    }

    /// The states `states` reach by empty moves, sorted.
    func closure(_ states: [Int32]) -> [Int32] {
        // Most steps of a literal land on one state with no empty move: no set to build.
        if states.count == 1, epsilons[Int(states[0])].isEmpty { return states }
        var seen = Set(states)
        var pending = states
        while let state = pending.popLast() {
            for next in epsilons[Int(state)] where seen.insert(next).inserted { pending.append(next) }
        }
        return seen.sorted()
    }

    /// The closed state set after reading `byte` from the closed set `states`.
    func step(_ states: [Int32], _ byte: UInt8) -> [Int32] {
        let input = ignoreCase ? Self.fold(byte) : byte
        var next: [Int32] = []
        for state in states {
            for (edge, target) in edges[Int(state)] where edge.accepts(input) { next.append(target) }
        }
        return next.isEmpty ? [] : closure(next)
    }

    var startSet: [Int32] { closure([0]) }

    func isAccepting(_ states: [Int32]) -> Bool { states.contains(accept) }

    /// Whether some accepted text does not start with `/` (the empty text included): such a
    /// term can match an opaque path.
    var acceptsWithoutLeadingSlash: Bool {
        let start = startSet
        if isAccepting(start) { return true }
        return start.contains { state in
            edges[Int(state)].contains { edge, _ in edge != .byte(UInt8(ascii: "/")) }
        }
    }

    /// Whether the whole of `bytes` is in the language.
    func matches(_ bytes: some Sequence<UInt8>) -> Bool {
        var states = startSet
        for byte in bytes {
            states = step(states, byte)
            if states.isEmpty { return false }
        }
        return isAccepting(states)
    }
}

extension PathLanguage {
    fileprivate var isAny: Bool {
        if case .anyByte = self { return true }
        return false
    }
}
