/// Runs a ``RegexProgram`` over input scalars as a Pike VM: all threads advance in lock step
/// over the input, in priority order, and a thread reaching a state another (higher priority)
/// thread already reached at the same input index is dropped. A state is an instruction plus
/// how many of the empty-checked loops around it have consumed nothing in their current
/// iteration (see `freshLoops`). That gives the match ECMAScript's backtracking finds (leftmost
/// start, then the first path in priority order) in O(states × input) steps, whatever the pattern.
struct RegexPikeVM {
    private let program: RegexProgram
    private let input: [UInt32]
    /// Instructions visited and threads stepped, for tests and the fuzz target's bound.
    private(set) var steps = 0
    /// The run stops, without an answer, once ``steps`` passes this (a decision's budget).
    private let stepLimit: Int
    /// Whether the run stopped at ``stepLimit``: its nil result then means "not decided", not "no match".
    private(set) var exceededLimit = false

    init(program: RegexProgram, input: [UInt32], stepLimit: Int = .max) {
        self.program = program
        self.input = input
        self.stepLimit = stepLimit
    }

    /// The most steps a run can take: each state (an instruction and how many loops around it
    /// have consumed nothing in their current iteration) is visited at most once per input
    /// index while following threads, and each thread waiting there is stepped once.
    static func stepBound(states: Int, inputCount: Int) -> Int {
        2 * states * (inputCount + 1)
    }

    /// The threads waiting at one input index, in priority order: the `consume` or `match`
    /// instruction each waits at, with its slots; `visited` marks every state reached there.
    private struct ThreadList {
        var pcs: [Int] = []
        var slots: [Int] = []
        var visitedGeneration: [Int]
        /// Per instruction: bit k = reached with k fresh enclosing loops (valid for the generation).
        var visitedStates: [UInt64]
        var generation = 1

        init(instructionCount: Int) {
            visitedGeneration = Array(repeating: 0, count: instructionCount)
            visitedStates = Array(repeating: 0, count: instructionCount)
        }

        mutating func reset() {
            pcs.removeAll(keepingCapacity: true)
            slots.removeAll(keepingCapacity: true)
            generation += 1
        }

        /// Marks state (`pc`, `fresh`) visited; false when it already was at this index.
        mutating func visit(_ pc: Int, fresh: Int) -> Bool {
            let bit: UInt64 = 1 << UInt64(fresh)
            if visitedGeneration[pc] != generation {
                visitedGeneration[pc] = generation
                visitedStates[pc] = bit
                return true
            }
            if visitedStates[pc] & bit != 0 { return false }
            visitedStates[pc] |= bit
            return true
        }
    }

    private enum Frame {
        case explore(Int)
        case restore(slot: Int, value: Int)
    }

    /// Slot values of the winning thread (`-1` = unset), or nil when nothing matches. With
    /// `firstMatchOnly` it returns at the first match any thread reaches (for `test`: whether
    /// there is a match does not depend on which one ECMAScript would pick).
    mutating func run(firstMatchOnly: Bool = false) -> [Int]? {
        let count = program.instructions.count
        var current = ThreadList(instructionCount: count)
        var next = ThreadList(instructionCount: count)
        var scratch = Array(repeating: -1, count: program.slotCount)
        var stack: [Frame] = []
        var matched: [Int]?

        for index in 0...input.count {
            if matched == nil && (index == 0 || !program.anchoredAtStart) {
                // A new start has the lowest priority: it goes after the threads already here.
                for slot in scratch.indices { scratch[slot] = -1 }
                follow(from: 0, at: index, slots: &scratch, into: &current, stack: &stack)
                if steps > stepLimit { return stop() }
            }
            if current.pcs.isEmpty {
                if matched != nil || program.anchoredAtStart { break }
                current.reset()
                continue
            }
            let scalar: UInt32? = index < input.count ? input[index] : nil
            let folded = scalar.map { program.ignoreCase ? RegexCaseFolding.fold($0) : $0 }
            next.reset()
            let slotCount = program.slotCount
            for (thread, pc) in current.pcs.enumerated() {
                steps += 1
                if steps > stepLimit { return stop() }
                let base = thread * slotCount
                switch program.instructions[pc] {
                case .match:
                    matched = Array(current.slots[base..<(base + slotCount)])
                    if firstMatchOnly { return matched }
                case .consume(let set):
                    guard let folded, contains(set, folded) else { continue }
                    for slot in 0..<slotCount { scratch[slot] = current.slots[base + slot] }
                    follow(from: pc + 1, at: index + 1, slots: &scratch, into: &next, stack: &stack)
                    continue
                default:
                    continue
                }
                // A match cuts off every lower-priority thread.
                break
            }
            if steps > stepLimit { return stop() }
            swap(&current, &next)
            if matched != nil && current.pcs.isEmpty { break }
        }
        return matched
    }

    /// Gives up a run over its step limit: no answer, and ``exceededLimit`` says so.
    private mutating func stop() -> [Int]? {
        exceededLimit = true
        return nil
    }

    private func contains(_ set: Int, _ scalar: UInt32) -> Bool {
        if scalar < 128 {
            let (low, high) = program.asciiBitmaps[set]
            return scalar < 64 ? (low >> UInt64(scalar)) & 1 == 1 : (high >> UInt64(scalar - 64)) & 1 == 1
        }
        return program.sets[set].contains(scalar)
    }

    /// Follows every path of non-consuming instructions from `start` at input `index`, depth
    /// first in priority order with an explicit stack (programs can be long), and adds each
    /// `consume` or `match` reached for the first time to `list` with the slots of that path.
    private mutating func follow(
        from start: Int, at index: Int, slots: inout [Int], into list: inout ThreadList, stack: inout [Frame]
    ) {
        stack.append(.explore(start))
        while let frame = stack.popLast() {
            var pc: Int
            switch frame {
            case .restore(let slot, let value):
                slots[slot] = value
                continue
            case .explore(let target):
                pc = target
            }
            // Follow one path, pushing the lower-priority branch of each split.
            while list.visit(pc, fresh: freshLoops(around: pc, at: index, slots: slots)) {
                steps += 1
                // Over the limit the run is abandoned: stop following (run() reports it).
                if steps > stepLimit {
                    stack.removeAll(keepingCapacity: true)
                    return
                }
                switch program.instructions[pc] {
                case .consume, .match:
                    list.pcs.append(pc)
                    list.slots.append(contentsOf: slots)
                case .split(let first, let second):
                    stack.append(.explore(second))
                    pc = first
                    continue
                case .jump(let target):
                    pc = target
                    continue
                case .save(let slot), .loopStart(let slot):
                    stack.append(.restore(slot: slot, value: slots[slot]))
                    slots[slot] = index
                    pc += 1
                    continue
                case .clear(let range):
                    for slot in range where slots[slot] != -1 {
                        stack.append(.restore(slot: slot, value: slots[slot]))
                        slots[slot] = -1
                    }
                    pc += 1
                    continue
                case .loopCheck(let slot):
                    if slots[slot] == index { break }
                    pc += 1
                    continue
                case .assert(let assertion):
                    if holds(assertion, at: index) {
                        pc += 1
                        continue
                    }
                }
                break
            }
        }
    }

    /// How many of the tracked loops around `pc`, innermost first, began their current
    /// iteration at `index` (consumed nothing yet). If a loop did, every loop inside it did too,
    /// so this count is the whole of the state the empty checks can tell apart: two threads at
    /// the same instruction with the same count have the same futures, and the one that came
    /// first (higher priority) wins, as in ECMAScript's backtracking.
    private func freshLoops(around pc: Int, at index: Int, slots: [Int]) -> Int {
        var count = 0
        var loop = program.enclosingLoop[pc]
        while loop >= 0 {
            let (slot, parent) = program.loops[loop]
            guard slots[slot] == index else { break }
            count += 1
            loop = parent
        }
        return count
    }

    private func holds(_ assertion: RegexAssertion, at index: Int) -> Bool {
        switch assertion {
        case .start: return index == 0
        case .end: return index == input.count
        case .wordBoundary: return isWord(at: index - 1) != isWord(at: index)
        case .notWordBoundary: return isWord(at: index - 1) == isWord(at: index)
        }
    }

    private func isWord(at index: Int) -> Bool {
        guard index >= 0, index < input.count else { return false }
        let scalar = input[index]
        let set = program.ignoreCase ? RegexScalarSet.wordCharactersIgnoringCase : RegexScalarSet.wordCharacters
        return set.contains(scalar)
    }
}
