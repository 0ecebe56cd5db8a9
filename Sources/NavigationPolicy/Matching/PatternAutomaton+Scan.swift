extension PatternAutomaton {
    /// At most this many groups are read in place per request; the patterns of any further
    /// group a path starts are filed one by one, so each occurrence costs a bounded number of
    /// lookups however many start words (`/a/`, `/a/a/`, …) the path begins with.
    static let groupsReadInPlace = 8

    /// Calls `report` with the owner of every entry that matches the whole `subject` (an owner
    /// may come more than once, and in no particular order).
    func forEachMatch(in subject: Substring, _ report: (Int32) -> Void) {
        var walk = Walk(self, subject)
        walk.walk(self) { owner in
            report(owner)
            return false
        }
    }

    /// One request's walk along its path, which can pause after any byte (once it has found
    /// what the caller asked) and go on later: a chain that asks whether its first candidate
    /// matches must not pay for reading the whole path when the answer comes early.
    struct Walk {
        private let bytes: [UInt8]
        private var scan: Scan
        private var index = 0
        private var node: Int32 = 0
        /// While the walk has never followed a failure link, the node spells the path's start:
        /// a start word there begins the patterns of its group.
        private var spellsStart = true
        private var hasStarted = false
        private(set) var isFinished = false

        init(_ automaton: PatternAutomaton, _ subject: Substring) {
            bytes = Array(subject.utf8)
            scan = Scan(length: Int32(bytes.count))
        }

        /// Reads on, calling `report` for each match, until it returns true (then pauses after
        /// the byte that found it, and returns true) or the path ends (returns false).
        @discardableResult
        mutating func walk(_ automaton: PatternAutomaton, _ report: (Int32) -> Bool) -> Bool {
            guard !isFinished else { return false }
            var pause = false
            let noted: (Int32) -> Void = { owner in if report(owner) { pause = true } }
            if !hasStarted {
                hasStarted = true
                if automaton.rootGroup >= 0 { scan.start(group: automaton.rootGroup, of: automaton, noted) }
                if pause { return true }
            }
            let trie = automaton.trie
            while index < bytes.count {
                node = trie.step(node, bytes[index])
                let position = Int32(index)
                index += 1
                if spellsStart {
                    if trie.depth(node) == position + 1 {
                        let group = automaton.groupOfNode[Int(node)]
                        if group >= 0 { scan.start(group: group, of: automaton, noted) }
                    } else {
                        spellsStart = false
                    }
                }
                if scan.isWaiting {
                    // Only the words something waits for: the pieces ending here form a chain of
                    // suffixes as long as the longest piece (`a`, `aa`, … `a×300` on a path of
                    // `a`s), and walking all of it at every byte cost (path) x (that length).
                    var word = scan.nextLive(trie.floatingWord(at: node), automaton)
                    while word >= 0 {
                        scan.found(word, endingAt: position, in: automaton, noted)
                        word = scan.nextLive(trie.nextFloating(word), automaton)
                    }
                }
                if pause { return true }
            }
            isFinished = true
            var word = trie.floatingWord(at: node)
            while word >= 0 {
                scan.endsPath(word, in: automaton, noted)
                word = trie.nextFloating(word)
            }
            return pause
        }
    }

    /// What one request's walk has found so far.
    private struct Scan {
        let length: Int32
        /// Groups the path has started whose cursors are read in place (``Group/waits``).
        var active: [Int32] = []
        /// Per (group, word): how many of the group's cursors for that word have moved on.
        var consumed: [Int64: Int32] = [:]
        /// Cursors filed one by one: those that moved past their first wait, and the groups past
        /// ``groupsReadInPlace``.
        var waiting: [Int32: [Cursor]] = [:]
        var ending: [Int32: [Cursor]] = [:]

        /// Shortcuts along the chains of pieces that end at a byte, over words nothing waits
        /// for, to the next word that something did wait for (or -1) when the shortcut was
        /// taken. A word starts being waited for only when a cursor is filed or a group starts,
        /// which bumps `epoch` and so drops every shortcut; there are at most as many of those
        /// as pieces of the patterns the path starts, so the walk costs (path) + (that) x
        /// (longest piece), not (path) x (longest piece).
        var skip: [Int32: (to: Int32, epoch: Int32)] = [:]
        var epoch: Int32 = 0
        var passed: [Int32] = []

        init(length: Int32) { self.length = length }

        /// Whether a cursor waits for `word`: filed ones, or a started group's not yet moved on.
        func isLive(_ word: Int32, _ automaton: PatternAutomaton) -> Bool {
            if waiting[word] != nil { return true }
            for group in active {
                guard let cursors = automaton.groups[Int(group)].waits[word] else { continue }
                if Int(consumed[Int64(group) << 32 | Int64(word)] ?? 0) < cursors.count { return true }
            }
            return false
        }

        /// The first word from `start` on along its chain that a cursor waits for, or -1.
        mutating func nextLive(_ start: Int32, _ automaton: PatternAutomaton) -> Int32 {
            var word = start
            passed.removeAll(keepingCapacity: true)
            while word >= 0, !isLive(word, automaton) {
                passed.append(word)
                if let jump = skip[word], jump.epoch == epoch {
                    word = jump.to
                } else {
                    word = automaton.trie.nextFloating(word)
                }
            }
            for dead in passed { skip[dead] = (word, epoch) }
            return word
        }

        /// Cursors still waiting for a word: the started groups' not yet moved on, and the filed
        /// ones. At zero the walk only steps the automaton: once every pattern the path started
        /// has found its pieces (`/*a*z` … `/*a×300*z` after 300 bytes of `a`), the rest of the
        /// path costs a transition per byte, not a look at the pieces ending there.
        var pending = 0

        var isWaiting: Bool { pending > 0 }

        mutating func start(group: Int32, of automaton: PatternAutomaton, _ report: (Int32) -> Void) {
            // New waiting words: skips taken over words that were dead may now pass live ones.
            epoch &+= 1
            if active.count < PatternAutomaton.groupsReadInPlace {
                active.append(group)
                pending += automaton.groups[Int(group)].waitCount
                for (entry, placement) in automaton.groups[Int(group)].immediates {
                    settle(entry, placement, automaton, report)
                }
            } else {
                for (entry, placement) in automaton.groups[Int(group)].placements {
                    settle(entry, placement, automaton, report)
                }
            }
        }

        mutating func settle(
            _ entry: Int32, _ placement: Placement, _ automaton: PatternAutomaton, _ report: (Int32) -> Void
        ) {
            switch placement {
            case .matchAtLeast(let minimum):
                if length >= minimum { report(automaton.entries[Int(entry)].owner) }
            case .matchExactly(let exact):
                if length == exact { report(automaton.entries[Int(entry)].owner) }
            case .wait(let word, let piece, let lower):
                // A word that cannot fit in what is left is never found: the pattern fails.
                if lower + automaton.trie.depth(word) <= length {
                    if waiting[word] == nil { epoch &+= 1 }
                    waiting[word, default: []].append(Cursor(entry: entry, piece: piece, lower: lower))
                    pending += 1
                }
            case .end(let word, let lower):
                if lower + automaton.trie.depth(word) <= length {
                    ending[word, default: []].append(Cursor(entry: entry, piece: -1, lower: lower))
                }
            }
        }

        /// `word` occurs ending at byte `position`: every cursor waiting for it from at or
        /// before its start moves on, to wait for its next piece from the byte after.
        mutating func found(
            _ word: Int32, endingAt position: Int32, in automaton: PatternAutomaton, _ report: (Int32) -> Void
        ) {
            let start = position + 1 - automaton.trie.depth(word)
            func advance(_ cursor: Cursor) {
                let entry = automaton.entries[Int(cursor.entry)]
                let next = PatternAutomaton.place(entry, piece: Int(cursor.piece) + 1, lower: position + 1, trie: automaton.trie)
                settle(cursor.entry, next, automaton, report)
            }
            for group in active {
                guard let cursors = automaton.groups[Int(group)].waits[word] else { continue }
                let key = Int64(group) << 32 | Int64(word)
                let done = Int(consumed[key] ?? 0)
                var next = done
                // Sorted by `lower`: the eligible ones are a prefix of what is left.
                while next < cursors.count, cursors[next].lower <= start {
                    advance(cursors[next])
                    next += 1
                }
                if next != done {
                    consumed[key] = Int32(next)
                    pending -= next - done
                }
            }
            guard let cursors = waiting.removeValue(forKey: word) else { return }
            var early: [Cursor] = []
            for cursor in cursors {
                // An occurrence that overlaps the piece before is not one for this cursor; it
                // waits for the next (at most the word's length in bytes later).
                guard cursor.lower <= start else {
                    early.append(cursor)
                    continue
                }
                pending -= 1
                advance(cursor)
            }
            if !early.isEmpty { waiting[word, default: []].append(contentsOf: early) }
        }

        /// The whole path ends with `word`: the cursors whose last piece it is match if it
        /// starts at or after their `lower`.
        func endsPath(_ word: Int32, in automaton: PatternAutomaton, _ report: (Int32) -> Void) {
            let start = length - automaton.trie.depth(word)
            for group in active {
                for cursor in automaton.groups[Int(group)].ends[word] ?? [] where cursor.lower <= start {
                    report(automaton.entries[Int(cursor.entry)].owner)
                }
            }
            for cursor in ending[word] ?? [] where cursor.lower <= start {
                report(automaton.entries[Int(cursor.entry)].owner)
            }
        }
    }
}
