/// A ``RegexProgram`` compiled for a one-pass run, when the next input scalar alone decides
/// every choice: what the generated URLPattern expressions nearly always are (`[^/]+?` stops
/// at the `/` that follows it, `\d+` at the first non-digit, `en|de|fr` differ in their first
/// letter). Such a run keeps one thread instead of the Pike VM's thread lists: no per-run
/// allocation, one step per input scalar, and no capture bookkeeping when only the answer is
/// asked for (issue 41: groups cost 2.7–6.3× the Rust `urlpattern` crate per match).
///
/// It gives exactly the Pike VM's result, because it is built from the VM's own rules: each
/// node is the list of threads `RegexPikeVM.follow` makes from one thread at one input index
/// (depth first in priority order, each instruction visited once per index), computed once,
/// for an index inside the input and for the end of the input (`$` holds only there, and which
/// instructions a path through `$` visits first changes what later paths reach). A program is
/// one-pass when, inside the input, the threads of every node wait at consumes whose scalar
/// sets are pairwise disjoint and none waits at `match` (only one thread can survive the next
/// scalar, so there is only ever one), and it uses no construct whose outcome depends on more
/// than the index (empty-checked loops, `\b`, `\B`). At the end of the input the VM takes the
/// first thread in priority order that waits at `match`; so does this (and with a fixed tail,
/// see ``tail``, at the tail's start). Anything else (an unanchored program, overlapping
/// choices such as `(a|ab)` or `[^/]+?\.[^/]+?`) returns nil and runs on the VM.
struct RegexOnePass: Sendable {
    /// A thread of a node: the consume it waits at (its set, with the set's ASCII bitmap
    /// inline), the slot writes on its path, and the node after that consume.
    struct Candidate: Sendable {
        let set: Int
        let asciiLow: UInt64
        let asciiHigh: UInt64
        let actions: Range<Int>
        let next: Int
    }

    /// One thread's closure: its candidates inside the input, and the slot writes of the path
    /// to `match` at the end of the input (nil: no match there).
    struct Node: Sendable {
        let candidates: Range<Int>
        let endActions: Range<Int>?
    }

    /// Node 0 is the start (input index 0); the others follow a consume.
    let nodes: [Node]
    let candidates: [Candidate]
    /// Slot writes: `s` sets slot s to the current index, `~s` (negative) clears it.
    let actions: [Int]
    let sets: [RegexScalarSet]
    let ignoreCase: Bool
    /// Capture slots (2 per group, group 0 included; a one-pass program has no loop registers).
    let slotCount: Int
    /// A fixed tail: the sets of the consumes the program ends with (before `$`), when the
    /// program is one-pass only without them (`[^/]+?\.html$`: a `.` may belong to the segment
    /// or start the tail). Every match ends with these scalars, so the run checks them against
    /// the input's last scalars and walks the rest, where reaching the tail counts as the end.
    let tail: [Int]
    /// Slot writes after the tail's `$` (the end of group 0), at the end of the input.
    let tailActions: [Int]

    /// Bigger programs are left to the VM: building the nodes is quadratic in the worst case.
    static let maxInstructions = 2_048
    /// More threads than this at one index are left to the VM (the disjointness check is quadratic).
    static let maxCandidates = 32

    /// The one-pass form of `program`, or nil when some choice needs more than the next scalar.
    init?(_ program: RegexProgram) {
        guard program.anchoredAtStart, program.loops.isEmpty, program.instructions.count <= Self.maxInstructions,
            program.slotCount == 2 * (program.captureCount + 1)
        else { return nil }
        for instruction in program.instructions {
            switch instruction {
            case .loopStart, .loopCheck, .assert(.wordBoundary), .assert(.notWordBoundary): return nil
            default: continue
            }
        }
        var tail: (start: Int, sets: [Int], actions: [Int])?
        var built = Self.build(program, tailStart: nil)
        if built == nil, let fixed = Self.fixedTail(program) {
            tail = fixed
            built = Self.build(program, tailStart: fixed.start)
        }
        guard let built else { return nil }
        (nodes, candidates, actions) = built
        self.tail = tail?.sets ?? []
        tailActions = tail?.actions ?? []
        sets = program.sets
        ignoreCase = program.ignoreCase
        slotCount = program.slotCount
    }

    /// The nodes, from the start's, breadth of the threads the program can hold; nil when a
    /// node's threads inside the input are not one-pass. With `tailStart`, reaching that
    /// instruction is the end (the walk stops before the tail).
    private static func build(
        _ program: RegexProgram, tailStart: Int?
    ) -> (nodes: [Node], candidates: [Candidate], actions: [Int])? {
        var nodes: [Node?] = [nil]
        var candidates: [Candidate] = []
        var actions: [Int] = []
        var nodeAfterConsume = [Int](repeating: -1, count: program.instructions.count)
        // (node, the instruction its closure starts from, whether that is input index 0)
        var pending: [(node: Int, from: Int, atStart: Bool)] = [(0, 0, true)]
        while let item = pending.popLast() {
            let (node, from, atStart) = (item.node, item.from, item.atStart)
            guard
                let inside = closure(program, from: from, atStart: atStart, atEnd: false, tailStart: tailStart),
                inside.match == nil, inside.consumes.count <= maxCandidates,
                pairwiseDisjoint(inside.consumes.map { program.sets[$0.set] }),
                let atEnd = closure(program, from: from, atStart: atStart, atEnd: true, tailStart: tailStart)
            else { return nil }
            let first = candidates.count
            for consume in inside.consumes {
                var next = nodeAfterConsume[consume.pc]
                if next < 0 {
                    next = nodes.count
                    nodes.append(nil)
                    nodeAfterConsume[consume.pc] = next
                    pending.append((next, consume.pc + 1, false))
                }
                let start = actions.count
                actions += consume.actions
                let (low, high) = program.asciiBitmaps[consume.set]
                candidates.append(
                    Candidate(set: consume.set, asciiLow: low, asciiHigh: high, actions: start..<actions.count, next: next))
            }
            var endActions: Range<Int>?
            if let match = atEnd.match {
                let start = actions.count
                actions += match
                endActions = start..<actions.count
            }
            nodes[node] = Node(candidates: first..<candidates.count, endActions: endActions)
        }
        let filled = nodes.compactMap { $0 }
        guard filled.count == nodes.count else { return nil }
        return (filled, candidates, actions)
    }

    /// The consumes a program ends with, straight before `$`, the saves then `match`, that no
    /// jump or split enters past the first of them: every path to `match` runs through all of
    /// them after the input's other scalars.
    private static func fixedTail(_ program: RegexProgram) -> (start: Int, sets: [Int], actions: [Int])? {
        let instructions = program.instructions
        guard var pc = instructions.indices.last, case .match = instructions[pc] else { return nil }
        var actions: [Int] = []
        pc -= 1
        while pc >= 0, case .save(let slot) = instructions[pc] {
            actions.insert(slot, at: 0)
            pc -= 1
        }
        guard pc >= 0, case .assert(.end) = instructions[pc] else { return nil }
        var sets: [Int] = []
        pc -= 1
        while pc >= 0, case .consume(let set) = instructions[pc] {
            sets.insert(set, at: 0)
            pc -= 1
        }
        let start = pc + 1
        guard !sets.isEmpty else { return nil }
        for instruction in instructions {
            switch instruction {
            case .split(let first, let second) where first > start || second > start: return nil
            case .jump(let target) where target > start: return nil
            default: continue
            }
        }
        return (start, sets, actions)
    }

    /// The threads `RegexPikeVM.follow` makes from `start` at an index that is (`atStart`) or
    /// is not 0 and is (`atEnd`) or is not the input's end: the consumes reached, in priority
    /// order, with the slot writes of their paths, and the first path to `match`. Mirrors
    /// `follow` step for step (a path ends at an instruction already visited at this index).
    private static func closure(
        _ program: RegexProgram, from start: Int, atStart: Bool, atEnd: Bool, tailStart: Int?
    ) -> (consumes: [(pc: Int, set: Int, actions: [Int])], match: [Int]?)? {
        var visited = [Bool](repeating: false, count: program.instructions.count)
        var consumes: [(pc: Int, set: Int, actions: [Int])] = []
        var match: [Int]?
        var stack: [(pc: Int, actions: [Int])] = [(start, [])]
        while let path = stack.popLast() {
            var pc = path.pc
            var actions = path.actions
            while pc < visited.count, !visited[pc] {
                visited[pc] = true
                if pc == tailStart {
                    // The tail's first consume: the end of the walk there, a thread that
                    // cannot reach `match` anywhere else (the tail ends at `$`).
                    if atEnd, match == nil { match = actions }
                    break
                }
                switch program.instructions[pc] {
                case .consume(let set):
                    consumes.append((pc, set, actions))
                case .match:
                    if match == nil { match = actions }
                case .split(let first, let second):
                    stack.append((second, actions))
                    pc = first
                    continue
                case .jump(let next):
                    pc = next
                    continue
                case .save(let slot):
                    actions.append(slot)
                    pc += 1
                    continue
                case .clear(let range):
                    for slot in range { actions.append(~slot) }
                    pc += 1
                    continue
                case .assert(.start):
                    if atStart {
                        pc += 1
                        continue
                    }
                case .assert(.end):
                    // With a tail, the walk's end is the tail's start, never the input's end.
                    if atEnd, tailStart == nil {
                        pc += 1
                        continue
                    }
                case .assert, .loopStart, .loopCheck:
                    return nil
                }
                break
            }
        }
        return (consumes, match)
    }

    private static func pairwiseDisjoint(_ sets: [RegexScalarSet]) -> Bool {
        for (index, set) in sets.enumerated() {
            for other in sets[(index + 1)...] where !set.intersection(other).isEmpty { return false }
        }
        return true
    }
}
