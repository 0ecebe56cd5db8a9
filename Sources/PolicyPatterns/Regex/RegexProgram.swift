/// One instruction of the Pike VM's program.
enum RegexInstruction: Sendable {
    /// Consume one input scalar whose (folded, with `i`) value is in `sets[index]`.
    case consume(Int)
    /// Continue at both; the first has priority (ECMAScript's backtracking would try it first).
    case split(Int, Int)
    case jump(Int)
    /// Record the input index in a slot (capture group bounds: group k is slots 2k, 2k+1).
    case save(Int)
    /// Set slots `range` to "unset": ECMAScript resets the captures inside a quantified atom at
    /// the start of each iteration.
    case clear(Range<Int>)
    /// Record the input index where an optional iteration of a loop whose body can match empty
    /// begins, in register slot `slot`.
    case loopStart(Int)
    /// Kill the thread when the iteration begun at `loopStart(slot)` consumed nothing:
    /// ECMAScript's RepeatMatcher fails an empty iteration beyond the minimum.
    case loopCheck(Int)
    case assert(RegexAssertion)
    case match
}

/// A compiled pattern: instructions, the scalar sets they test, and the slot layout.
struct RegexProgram: Sendable {
    /// Above this many instructions a pattern is refused (counted repetitions expand).
    static let maxInstructions = 20_000
    /// Above this many VM states (see `stateCount`) a pattern is refused.
    static let maxStates = 100_000

    var instructions: [RegexInstruction] = []
    var sets: [RegexScalarSet] = []
    /// Per set: ASCII membership as a bitmap (bit i of word i/64), the common case of URL input.
    var asciiBitmaps: [(UInt64, UInt64)] = []
    /// Capture groups, not counting group 0.
    var captureCount = 0
    /// Slots per thread: 2 per group including group 0, then one per loop register.
    var slotCount = 0
    var ignoreCase = false
    var anchoredAtStart = false
    /// The innermost loop (index into `loops`) whose optional iteration encloses each
    /// instruction, or -1. Only loops whose body can match empty are tracked.
    var enclosingLoop: [Int] = []
    /// Loops with an empty check: the slot of their start register and the loop enclosing them.
    var loops: [(slot: Int, parent: Int)] = []
    /// Σ over instructions of (1 + enclosing tracked loops): the VM's states per input index.
    var stateCount = 0

    /// Tracked loops nest at most this deep (a VM state is an instruction and how many of the
    /// loops around it have consumed nothing yet in their current iteration).
    static let maxLoopNesting = 32
}

/// Compiles a ``RegexNode`` into a ``RegexProgram``: Thompson's construction with priorities,
/// counted repetitions expanded, and ECMAScript's per-iteration capture reset and empty check.
struct RegexCompiler {
    private var program = RegexProgram()
    private var loopRegisters = 0
    private var setIndex: [RegexScalarSet: Int] = [:]
    /// The tracked loop whose iteration is being emitted (-1 = none) and how deep it nests.
    private var currentLoop = -1
    private var loopNesting = 0

    static func compile(
        _ node: RegexNode, captureCount: Int, ignoreCase: Bool
    ) throws(ECMARegexError) -> RegexProgram {
        var compiler = RegexCompiler()
        compiler.program.captureCount = captureCount
        compiler.program.ignoreCase = ignoreCase
        compiler.program.anchoredAtStart = node.isAnchoredAtStart
        try compiler.emit(.save(0), offset: 0)
        try compiler.compile(node)
        try compiler.emit(.save(1), offset: 0)
        try compiler.emit(.match, offset: 0)
        // Loop registers come after the capture slots; their instructions were numbered from 0.
        let captureSlots = 2 * (captureCount + 1)
        compiler.program.instructions = compiler.program.instructions.map { instruction in
            switch instruction {
            case .loopStart(let register): return .loopStart(captureSlots + register)
            case .loopCheck(let register): return .loopCheck(captureSlots + register)
            default: return instruction
            }
        }
        compiler.program.loops = compiler.program.loops.map { (captureSlots + $0.slot, $0.parent) }
        compiler.program.slotCount = captureSlots + compiler.loopRegisters
        return compiler.program
    }

    @discardableResult
    private mutating func emit(_ instruction: RegexInstruction, offset: Int) throws(ECMARegexError) -> Int {
        guard program.instructions.count < RegexProgram.maxInstructions else {
            throw ECMARegexError(
                "the pattern compiles to more than \(RegexProgram.maxInstructions) instructions"
                    + " (counted repetitions {n,m} are expanded, and so is x+ when x can match empty; use smaller counts)",
                offset: offset)
        }
        program.stateCount += 1 + loopNesting
        guard program.stateCount <= RegexProgram.maxStates else {
            throw ECMARegexError(
                "the pattern needs more than \(RegexProgram.maxStates) matcher states"
                    + " (quantifiers over groups that can match empty, nested, multiply them)", offset: offset)
        }
        program.instructions.append(instruction)
        program.enclosingLoop.append(currentLoop)
        return program.instructions.count - 1
    }

    private mutating func patch(_ index: Int, _ instruction: RegexInstruction) {
        program.instructions[index] = instruction
    }

    private var next: Int { program.instructions.count }

    private mutating func compile(_ node: RegexNode, offset: Int = 0) throws(ECMARegexError) {
        switch node {
        case .empty:
            break
        case .scalars(let set):
            let index: Int
            if let known = setIndex[set] {
                index = known
            } else {
                index = program.sets.count
                program.sets.append(set)
                program.asciiBitmaps.append(Self.asciiBitmap(set))
                setIndex[set] = index
            }
            try emit(.consume(index), offset: offset)
        case .concatenation(let nodes):
            for node in nodes { try compile(node, offset: offset) }
        case .alternation(let nodes):
            // split L1, next; L1: a; jump end; next: split L2, … ; last alternative falls through.
            var jumps: [Int] = []
            for (index, alternative) in nodes.enumerated() {
                if index < nodes.count - 1 {
                    let split = try emit(.split(0, 0), offset: offset)
                    try compile(alternative, offset: offset)
                    jumps.append(try emit(.jump(0), offset: offset))
                    patch(split, .split(split + 1, next))
                } else {
                    try compile(alternative, offset: offset)
                }
            }
            for jump in jumps { patch(jump, .jump(next)) }
        case .group(let body, let capture):
            if let capture { try emit(.save(2 * capture), offset: offset) }
            try compile(body, offset: offset)
            if let capture { try emit(.save(2 * capture + 1), offset: offset) }
        case .repetition(let body, let minimum, let maximum, let greedy, let captures, let repetitionOffset):
            try compileRepetition(
                body, minimum: minimum, maximum: maximum, greedy: greedy, captures: captures, offset: repetitionOffset)
        case .assertion(let assertion):
            try emit(.assert(assertion), offset: offset)
        }
    }

    private mutating func compileRepetition(
        _ body: RegexNode, minimum: Int, maximum: Int?, greedy: Bool, captures: Range<Int>, offset: Int
    ) throws(ECMARegexError) {
        let clearSlots = (2 * captures.lowerBound)..<(2 * captures.upperBound)
        if maximum == nil, minimum >= 1, !body.canMatchEmpty {
            // x{n,} over a body that always consumes: n - 1 copies, then one copy looping back,
            // so nested `+` do not double the program at every level. No empty check is needed.
            for _ in 1..<minimum {
                if !clearSlots.isEmpty { try emit(.clear(clearSlots), offset: offset) }
                try compile(body, offset: offset)
            }
            let loop = next
            if !clearSlots.isEmpty { try emit(.clear(clearSlots), offset: offset) }
            try compile(body, offset: offset)
            let split = try emit(.split(0, 0), offset: offset)
            patch(split, greedy ? .split(loop, split + 1) : .split(split + 1, loop))
            return
        }
        // Mandatory iterations: no empty check (ECMAScript checks only beyond the minimum).
        for _ in 0..<minimum {
            let before = next
            if !clearSlots.isEmpty { try emit(.clear(clearSlots), offset: offset) }
            try compile(body, offset: offset)
            // A body with no instructions (`(?:){999999999}`) repeats nothing: stop here rather
            // than loop over a count no instruction cap would ever end.
            if next == before { return }
        }
        if maximum == minimum { return }
        let register: Int? = body.canMatchEmpty ? loopRegisters : nil
        var loop = -1
        if let register {
            loopRegisters += 1
            guard loopNesting < RegexProgram.maxLoopNesting else {
                throw ECMARegexError(
                    "quantified groups that can match empty nested deeper than \(RegexProgram.maxLoopNesting)"
                        + " are not supported", offset: offset)
            }
            loop = program.loops.count
            program.loops.append((register, currentLoop))
        }

        // The iteration's instructions after its loopStart know the loop encloses them: their
        // VM state includes whether this iteration has consumed anything yet.
        func iteration(_ compiler: inout RegexCompiler) throws(ECMARegexError) {
            guard let register else {
                if !clearSlots.isEmpty { try compiler.emit(.clear(clearSlots), offset: offset) }
                try compiler.compile(body, offset: offset)
                return
            }
            try compiler.emit(.loopStart(register), offset: offset)
            let outer = compiler.currentLoop
            compiler.currentLoop = loop
            compiler.loopNesting += 1
            if !clearSlots.isEmpty { try compiler.emit(.clear(clearSlots), offset: offset) }
            try compiler.compile(body, offset: offset)
            try compiler.emit(.loopCheck(register), offset: offset)
            compiler.loopNesting -= 1
            compiler.currentLoop = outer
        }

        if let maximum {
            // x{0,k}: split into an iteration or out, k times; every exit goes to the end.
            var splits: [Int] = []
            for _ in minimum..<maximum {
                splits.append(try emit(.split(0, 0), offset: offset))
                try iteration(&self)
            }
            let end = next
            for split in splits {
                patch(split, greedy ? .split(split + 1, end) : .split(end, split + 1))
            }
        } else {
            // x*: loop: split body, end; body; jump loop.
            let loop = try emit(.split(0, 0), offset: offset)
            try iteration(&self)
            try emit(.jump(loop), offset: offset)
            let end = next
            patch(loop, greedy ? .split(loop + 1, end) : .split(end, loop + 1))
        }
    }

    private static func asciiBitmap(_ set: RegexScalarSet) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for range in set.ranges where range.lowerBound < 128 {
            for scalar in range.lowerBound...min(range.upperBound, 127) {
                if scalar < 64 { low |= 1 << UInt64(scalar) } else { high |= 1 << UInt64(scalar - 64) }
            }
        }
        return (low, high)
    }
}
