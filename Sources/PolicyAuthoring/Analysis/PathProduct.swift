/// The exact atoms of a set of path terms: every combination of terms (a *signature*) that some
/// match-form path satisfies, each with a shortest such path.
///
/// All terms' automata run side by side (each determinized lazily), together with a small
/// automaton for the shape of a match form (see ``Shape``), breadth-first over an alphabet of
/// byte classes: every byte a term names, both cases of those a case-insensitive term names,
/// `/`, the hex digits when a term names `%`, and one byte no term names, which stands for all
/// of those (no term tells them apart, and in a match form each can be swapped for it). Every
/// reachable product state that ends a match form gives a signature; when the exploration ends
/// before the state cap and the budget, no signature is missed.
struct PathProduct {
    /// One term's automaton, determinized as the exploration needs it.
    private struct LazyDFA {
        let nfa: PathNFA
        /// Set 0 is the dead set.
        var sets: [[Int32]] = [[]]
        var ids: [[Int32]: Int32] = [[]: 0]
        var accepting: [Bool] = [false]
        /// Per set and byte class, the next set; -1 when not computed yet.
        var table: [Int32] = []
        let classCount: Int

        init(_ nfa: PathNFA, classCount: Int) {
            self.nfa = nfa
            self.classCount = classCount
            table = Array(repeating: 0, count: classCount)
        }

        mutating func id(_ set: [Int32]) -> Int32 {
            if let id = ids[set] { return id }
            let id = Int32(sets.count)
            sets.append(set)
            ids[set] = id
            accepting.append(nfa.isAccepting(set))
            table += Array(repeating: -1, count: classCount)
            return id
        }

        /// The next set; `work` counts the NFA states stepped when the table had no answer yet.
        mutating func next(_ set: Int32, _ byteClass: Int, _ byte: UInt8, work: inout Int) -> Int32 {
            let slot = Int(set) * classCount + byteClass
            let known = table[slot]
            if known >= 0 { return known }
            work += 1 + sets[Int(set)].count
            let target = id(nfa.step(sets[Int(set)], byte))
            table[slot] = target
            return target
        }
    }

    /// The exploration's answer: signatures with their shortest paths, in breadth-first order
    /// (the first is `/`'s), or why it stopped before it was complete.
    enum Outcome {
        case complete([(signature: [Int32], path: String)], states: Int)
        case stopped(String)
    }

    /// Tenths of a step per live term read for one byte class (a table look-up, an append, and
    /// its share of hashing the new state's key).
    static let lookupWeight = 7

    /// Tenths of a step per NFA state stepped while determinizing (see ``explore``).
    static let nfaStepWeight = 30

    /// Product states explored at most; past it the atoms are left to the inexact candidates.
    static let stateCap = 60_000

    /// Explores the product of `terms` (term ids with their automata), charging `budget`.
    ///
    /// Cost: every state expanded reads each byte class through each live term (a table look-up
    /// once determinized, ``lookupWeight``), hashes and stores each new state (one step), and
    /// steps the NFA of a term the first time a set meets a class (``nfaStepWeight`` per NFA
    /// state). The weights were fitted so that the exploration costs about the CPU per step of
    /// the rest of a run (outside attack 9, F5: uncharged, a mixed-case chain spent 7–13 times
    /// the CPU per step; `AnalysisPathAutomatonBudgetTests.shapes` measures it).
    static func explore(_ terms: [(id: Int32, nfa: PathNFA)], budget: AnalysisBudget?, cap: Int = stateCap) -> Outcome {
        let classes = Self.alphabet(terms.map(\.nfa))
        guard !classes.isEmpty else { return .stopped("no byte is free to stand for the bytes no path term names") }
        var dfas = terms.map { LazyDFA($0.nfa, classCount: classes.count) }
        // A state: the shape's state, then (term index, set id) for every term not yet dead.
        var start: [Int32] = [Int32(Shape.start)]
        for index in dfas.indices {
            let set = dfas[index].id(dfas[index].nfa.startSet)
            if set != 0 {
                start.append(Int32(index))
                start.append(set)
            }
        }
        var states: [[Int32]] = [start]
        var known: [[Int32]: Int32] = [start: 0]
        var parent: [Int32] = [-1]
        var via: [UInt8] = [0]
        var signatures: [[Int32]: Int] = [:]
        var found: [(signature: [Int32], path: String)] = []
        var pendingCharge = 0
        var nfaWork = 0
        var cursor = 0
        while cursor < states.count {
            let state = states[cursor]
            let shape = UInt8(truncatingIfNeeded: state[0])
            if Shape.isAccepting(shape) {
                var signature: [Int32] = []
                var pair = 1
                while pair + 1 < state.count {
                    if dfas[Int(state[pair])].accepting[Int(state[pair + 1])] { signature.append(terms[Int(state[pair])].id) }
                    pair += 2
                }
                signature.sort()
                if signatures[signature] == nil {
                    signatures[signature] = found.count
                    found.append((signature, Self.path(to: cursor, parent: parent, via: via)))
                }
            }
            for (byteClass, byte) in classes.enumerated() {
                guard let nextShape = Shape.next(shape, byte) else { continue }
                var next: [Int32] = [Int32(nextShape)]
                next.reserveCapacity(state.count)
                var pair = 1
                while pair + 1 < state.count {
                    let term = Int(state[pair])
                    let set = dfas[term].next(state[pair + 1], byteClass, byte, work: &nfaWork)
                    if set != 0 {
                        next.append(Int32(term))
                        next.append(set)
                    }
                    pair += 2
                }
                pendingCharge += Self.lookupWeight * (state.count / 2 + 1)
                if known[next] == nil {
                    guard states.count < cap else {
                        return .stopped("the path automaton reached its cap of \(cap) states")
                    }
                    known[next] = Int32(states.count)
                    states.append(next)
                    parent.append(Int32(cursor))
                    via.append(byte)
                    pendingCharge += 10  // one step per new state
                }
            }
            pendingCharge += Self.nfaStepWeight * nfaWork
            nfaWork = 0
            if pendingCharge >= 10_000 {
                if let budget, !budget.spend(pendingCharge / 10) { return .stopped(budget.reason) }
                pendingCharge %= 10
            }
            cursor += 1
        }
        if let budget, !budget.spend(pendingCharge / 10 + 1) { return .stopped(budget.reason) }
        return .complete(found, states: states.count)
    }

    private static func path(to state: Int, parent: [Int32], via: [UInt8]) -> String {
        var bytes: [UInt8] = []
        var current = state
        while current > 0 {
            bytes.append(via[current])
            current = Int(parent[current])
        }
        return String(decoding: bytes.reversed(), as: UTF8.self)
    }

    /// The byte classes' representatives (see the type's note); empty when no plain byte is left
    /// to stand for the unnamed ones.
    static func alphabet(_ automata: [PathNFA]) -> [UInt8] {
        var named: Set<UInt8> = [UInt8(ascii: "/")]
        for automaton in automata { named.formUnion(automaton.namedBytes) }
        if named.contains(UInt8(ascii: "%")) { named.formUnion(Array("0123456789ABCDEF".utf8)) }
        guard let other = Array("qzxjkvwyQZXJKVWY0123456789_~-".utf8).first(where: { !named.contains($0) }) else {
            return []
        }
        return [other] + named.sorted()
    }

    /// The shape of a match form (``MatchPath``): `/`, or `/`-separated segments that are not
    /// empty, `.` or `..`, made of bytes a parsed path keeps as they are (not the path
    /// percent-encode set, `\`, `;`) and `%XX` escapes with upper-case hex of a byte that is not
    /// unreserved (those are decoded). Paths of any other shape are never compared.
    enum Shape {
        static let start: UInt8 = 0
        private static let root: UInt8 = 1
        private static let afterSlash: UInt8 = 2
        private static let oneDot: UInt8 = 3
        private static let twoDots: UInt8 = 4
        private static let segment: UInt8 = 5
        private static let percent: UInt8 = 6
        /// 7 + the high hex digit: one digit of an escape read.
        private static let escapeHigh: UInt8 = 7

        static func isAccepting(_ state: UInt8) -> Bool { state == root || state == segment }

        static func next(_ state: UInt8, _ byte: UInt8) -> UInt8? {
            switch state {
            case start: return byte == UInt8(ascii: "/") ? root : nil
            case percent:
                guard let high = upperHex(byte) else { return nil }
                return escapeHigh + high
            case escapeHigh...(escapeHigh + 15):
                guard let low = upperHex(byte) else { return nil }
                return MatchPath.isUnreserved((state - escapeHigh) << 4 | low) ? nil : segment
            default:
                break
            }
            switch byte {
            case UInt8(ascii: "/"):
                return state == segment ? afterSlash : nil
            case UInt8(ascii: "."):
                switch state {
                case root, afterSlash: return oneDot
                case oneDot: return twoDots
                default: return segment
                }
            case UInt8(ascii: "%"):
                return percent
            case UInt8(ascii: "\\"), UInt8(ascii: ";"):
                return nil
            default:
                return byte >= 0x21 && byte <= 0x7E && !PercentEncodeSet.path.contains(byte) ? segment : nil
            }
        }

        private static func upperHex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
}
