/// The `pathPatterns` of every handler of a chain, matched against a request's path in one
/// pass (``PatternAutomaton``) instead of one pass per pattern per handler.
///
/// Without it, a request that is a candidate for many patterns (1,000 handlers filed under the
/// segment `secretN` that one path all names, or one handler with 1,000 patterns sharing the
/// key `/api`) costs a pass over its path for each: 1,000 × 32 KB. With it, a request costs one
/// walk of its path per case rule (folded, and exact for `caseSensitive` handlers), plus a step
/// per piece of each pattern it starts: the time per decision no longer grows with their product.
///
/// A handler with a pattern whose piece mixes `?` and literal bytes (`/v?/*`: not a word of
/// the automaton) keeps its own pattern index (``PathSet``) for all its patterns, as before:
/// each candidate there costs a pass over the path.
final class ChainPatterns: Sendable {
    /// Per owner (one per pattern of a handler): the handler's position and the pattern's index.
    private let owners: [Owner]
    private let folded: PatternAutomaton?
    private let exact: PatternAutomaton?
    /// By handler position: 0 when its own ``PathSet`` answers for its patterns, 1 when the
    /// folded automaton does, 2 when the exact one (`caseSensitive`) does.
    private let rule: [UInt8]

    /// By handler position: when every pattern of a covered handler ends in literal bytes (no
    /// `*` after them), those bytes; a path that ends with none of them matches none, which is
    /// known without a walk (a pattern alone checks its anchored end first too).
    private let requiredEnds: [[[UInt8]]?]

    private static func requiredEnds(_ patterns: [PathPattern]) -> [[UInt8]]? {
        var ends: [[UInt8]] = []
        for pattern in patterns {
            guard pattern.directory == nil, !pattern.glob.trailingStar, let last = pattern.glob.chunks.last,
                last.isAny.isEmpty, !last.bytes.isEmpty
            else { return nil }
            ends.append(last.bytes)
        }
        return ends
    }

    /// Whether the covered handler at `position` could match `path` by its patterns' literal
    /// ends alone (true when some pattern has none).
    func mayEnd(_ path: MatchPath, at position: Int32) -> Bool {
        guard let ends = requiredEnds[Int(position)] else { return true }
        let subject = isExact(position) ? path.textForm.utf8 : path.foldedForm.utf8
        return ends.contains { end in end.count <= subject.count && subject.suffix(end.count).elementsEqual(end) }
    }

    private struct Owner: Sendable {
        let handler: Int32
        let pattern: Int32
    }

    /// Below this many patterns in a whole chain, trying each candidate's own stays cheaper.
    static let threshold = 8

    /// Path bytes a request may spend on patterns tried alone before the automaton answers
    /// (``LazyPatternHits``); 0 makes the automaton answer for every covered handler.
    let directBytes: Int

    /// Nil when the chain has `threshold` patterns or fewer (too few for an automaton to pay).
    init?(links: [ChainLink], threshold: Int = ChainPatterns.threshold, directBytes: Int = 8_192) {
        let total = links.reduce(0) { $0 + Self.words($1.matcher).count }
        guard total > threshold else { return nil }
        self.directBytes = directBytes
        var owners: [Owner] = []
        var foldedGlobs: [(owner: Int32, glob: Glob)] = []
        var exactGlobs: [(owner: Int32, glob: Glob)] = []
        var rule = [UInt8](repeating: 0, count: links.count)
        owners.reserveCapacity(total)
        for (position, link) in links.enumerated() {
            let paths = link.matcher.paths
            let words = Self.words(link.matcher)
            let isRegular = words.allSatisfy { pattern in
                PatternAutomaton.isRegular(pattern.glob) && pattern.directory.map(PatternAutomaton.isRegular) ?? true
            }
            guard !words.isEmpty, isRegular else { continue }
            rule[position] = paths.caseSensitive ? 2 : 1
            for (index, pattern) in words.enumerated() {
                let owner = Int32(owners.count)
                owners.append(Owner(handler: Int32(position), pattern: Int32(index)))
                for glob in [pattern.glob] + (pattern.directory.map { [$0] } ?? []) {
                    if paths.caseSensitive { exactGlobs.append((owner, glob)) } else { foldedGlobs.append((owner, glob)) }
                }
            }
        }
        self.owners = owners
        self.folded = foldedGlobs.isEmpty ? nil : PatternAutomaton(foldedGlobs)
        self.exact = exactGlobs.isEmpty ? nil : PatternAutomaton(exactGlobs)
        self.rule = rule
        self.requiredEnds = links.enumerated().map { position, link in
            guard rule[position] != 0 else { return nil }
            return Self.requiredEnds(Self.words(link.matcher))
        }
    }

    /// The forms whose entries' glob pieces are words of the automaton, from their descriptions
    /// (``MatchFormDescription/AutomatonWords``).
    static let wordForms = MatchForm.all.filter { $0.description.automaton == .globPieces }

    /// A handler's patterns whose pieces are words, in the order explain numbers them.
    private static func words(_ matcher: RequestMatcher) -> [PathPattern] {
        var patterns: [PathPattern] = []
        for form in wordForms { patterns += words(of: form, in: matcher) }
        return patterns
    }

    /// The automaton's part of each form: the compiled patterns of `matcher` in `form` whose
    /// glob pieces become words (empty for a form that contributes none).
    static func words(of form: MatchForm, in matcher: RequestMatcher) -> [PathPattern] {
        switch form {
        case .pathPatterns: matcher.paths.patterns
        case .schemes, .hostNames, .hostSuffixes, .hostRanges, .hostClasses, .paths, .pathPrefixes, .urlPatterns,
            .methods, .navigationTypes, .targetFrames, .caseSensitive, .mode, .defaultDecision, .action, .location,
            .response:
            []
        }
    }

    /// Whether the automaton answers for the patterns of the handler at `position`.
    func covers(_ position: Int32) -> Bool { rule[Int(position)] != 0 }

    /// The automaton for the handler at `position`'s case rule (only for handlers it ``covers(_:)``).
    fileprivate func automaton(for position: Int32) -> PatternAutomaton? {
        rule[Int(position)] == 2 ? exact : folded
    }

    func isExact(_ position: Int32) -> Bool { rule[Int(position)] == 2 }
    fileprivate func handler(of owner: Int32) -> Int32 { owners[Int(owner)].handler }
    fileprivate func pattern(of owner: Int32) -> Int32 { owners[Int(owner)].pattern }
}

/// A request's `pathPatterns` answers, read from the chain's automata only as far as the
/// handlers asked about need: most requests are decided by a host or exact path first, and a
/// candidate whose pattern matches early stops the walk there.
struct LazyPatternHits {
    private let patterns: ChainPatterns?
    private let path: MatchPath
    private var foldedWalk: PatternAutomaton.Walk?
    private var exactWalk: PatternAutomaton.Walk?
    /// The owners found so far, and their handlers.
    private var found: [Int32] = []
    private var handlersFound: Set<Int32> = []
    /// Path bytes left to patterns tried alone (``PathPattern/matches(_:)``), a pass over the path
    /// each: short paths with a few candidates skip the automaton's set-up (~1 µs), long ones
    /// go to it at once, and the cost stays bounded either way.
    private var directBytes: Int

    init(_ patterns: ChainPatterns?, _ path: MatchPath) {
        self.patterns = patterns
        self.path = path
        self.directBytes = patterns?.directBytes ?? 8_192
    }

    /// Whether `link` (at `position`) matches `request`, its patterns answered by the automaton.
    mutating func matches(_ link: ChainLink, at position: Int32, _ request: CanonicalRequest) -> Bool {
        firstMismatch(link, at: position, request) == nil
    }

    mutating func firstMismatch(_ link: ChainLink, at position: Int32, _ request: CanonicalRequest) -> RequestMatcher.Field? {
        guard covers(position) else { return link.matcher.firstMismatch(request) }
        return link.matcher.firstMismatch(request) {
            let paths = link.matcher.paths
            // A few patterns are tried alone, each a pass over the path; past the request's
            // budget of such passes, the automaton answers (one walk, whatever follows).
            let length = max(1, request.matchPath.foldedForm.utf8.count)
            let count = paths.candidatePatternCount(request.matchPath, upTo: directBytes / length)
            if count == 0 { return false }
            if let patterns, !patterns.mayEnd(request.matchPath, at: position) { return false }
            if count * length <= directBytes, !handlersFound.contains(position) {
                directBytes -= count * length
                return paths.containsPatternMatch(request.matchPath)
            }
            return anyPattern(of: position)
        }
    }

    /// Whether the chain's automaton answers for the handler at `position` (else its own ``PathSet`` does).
    func covers(_ position: Int32) -> Bool { patterns?.covers(position) ?? false }

    /// Whether a pattern of the covered handler at `position` matches: walks on only until one does.
    mutating func anyPattern(of position: Int32) -> Bool {
        if handlersFound.contains(position) { return true }
        guard let patterns else { return false }
        return walk(for: position, patterns) { $0 == position }
    }

    /// The first pattern of the covered handler at `position` that matches (for explain): the walk goes to the end.
    mutating func firstPattern(of position: Int32) -> Int? {
        guard let patterns else { return nil }
        walk(for: position, patterns) { _ in false }
        return found.filter { patterns.handler(of: $0) == position }.map { Int(patterns.pattern(of: $0)) }.min()
    }

    /// Walks the automaton of `position`'s case rule on, recording matches, until `stop` holds
    /// for a matched handler; returns whether it did.
    @discardableResult
    private mutating func walk(for position: Int32, _ patterns: ChainPatterns, until stop: (Int32) -> Bool) -> Bool {
        guard let automaton = patterns.automaton(for: position) else { return false }
        let isExact = patterns.isExact(position)
        var walk =
            (isExact ? exactWalk : foldedWalk)
            ?? PatternAutomaton.Walk(automaton, isExact ? path.textForm : path.foldedForm)
        var found = self.found
        var handlersFound = self.handlersFound
        self.found = []
        let stopped = walk.walk(automaton) { owner in
            let handler = patterns.handler(of: owner)
            found.append(owner)
            handlersFound.insert(handler)
            return stop(handler)
        }
        self.found = found
        self.handlersFound = handlersFound
        if isExact { exactWalk = walk } else { foldedWalk = walk }
        return stopped
    }
}
