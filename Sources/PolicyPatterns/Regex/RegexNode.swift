/// The parsed form of an ECMAScript pattern, before compilation to the Pike VM's program.
indirect enum RegexNode: Sendable {
    /// Matches the empty string.
    case empty
    /// One scalar from the set (already closed under case folding when the `i` flag is on: the
    /// matcher tests the folded input scalar).
    case scalars(RegexScalarSet)
    case concatenation([RegexNode])
    /// Alternatives in priority order (left first, as ECMAScript's backtracking tries them).
    case alternation([RegexNode])
    /// `( )` with its 1-based capture number, or `(?: )` with nil.
    case group(RegexNode, capture: Int?)
    /// `atom{min,max}` (max nil = unbounded). `captures` are the capture numbers inside the atom,
    /// which ECMAScript resets to undefined at the start of every iteration; `offset` is where the
    /// quantifier is in the pattern (for the error when its expansion is too large).
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool, captures: Range<Int>, offset: Int)
    case assertion(RegexAssertion)

    /// Whether the node can match without consuming input (then a loop over it needs ECMAScript's
    /// empty-iteration check).
    var canMatchEmpty: Bool {
        switch self {
        case .empty, .assertion: return true
        case .scalars: return false
        case .concatenation(let nodes): return nodes.allSatisfy { $0.canMatchEmpty }
        case .alternation(let nodes): return nodes.contains { $0.canMatchEmpty }
        case .group(let node, _): return node.canMatchEmpty
        case .repetition(let node, let min, _, _, _, _): return min == 0 || node.canMatchEmpty
        }
    }

    /// Whether every match must begin at input index 0 (the pattern starts with `^` on every
    /// path), so the matcher need not try later start positions.
    var isAnchoredAtStart: Bool {
        switch self {
        case .assertion(.start): return true
        case .empty, .scalars, .assertion, .repetition: return false
        case .concatenation(let nodes): return nodes.first?.isAnchoredAtStart ?? false
        case .alternation(let nodes): return !nodes.isEmpty && nodes.allSatisfy { $0.isAnchoredAtStart }
        case .group(let node, _): return node.isAnchoredAtStart
        }
    }
}

/// The zero-width assertions the engine supports (no lookaround: it cannot be linear here).
enum RegexAssertion: Sendable {
    /// `^` without the `m` flag: input index 0.
    case start
    /// `$` without the `m` flag: the end of the input.
    case end
    /// `\b`.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}
