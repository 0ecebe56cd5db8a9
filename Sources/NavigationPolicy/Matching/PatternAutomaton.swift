/// Decides which of many wildcard patterns match a path in one left-to-right pass, so a
/// policy's cost per request is linear in the path plus the patterns, never their product.
///
/// Trying patterns one by one costs each a pass over the path: 1,000 patterns that share a
/// literal prefix (`/api/*x1*` … `/api/*x1000*`) or all require a segment the path repeats
/// (`/*/secretN/*`) cost 1,000 passes over a 32 KB path, up to a second and a half. Here every
/// literal piece between two `*` of every pattern is a word of one Aho–Corasick automaton, and
/// each pattern is a cursor that waits for its next piece:
/// - a pattern starts when its first piece (anchored at the path's start) is the path's
///   beginning: the walk from the root along the path passes that piece's node at its depth;
/// - a cursor waiting for piece `w` from byte `lower` moves on at the first occurrence of `w`
///   that starts at or after `lower` (the leftmost place, which never loses a match, see
///   ``Glob``), and then waits for the next piece from the byte after it;
/// - the last piece of a pattern that does not end in `*` must end the path: it is checked
///   against the pieces the whole path ends with, once, after the pass;
/// - a piece of `?` only (`*??*`) moves `lower` on without waiting.
///
/// Each cursor is moved at most once per piece, so a request costs the path's length, plus the
/// pieces that end at each byte (a chain of suffix links, at most the longest piece), plus one
/// step per piece of each pattern it starts. Pieces that mix `?` and literal bytes are not
/// words: ``ChainPatterns`` matches such patterns one by one, and lint counts them.
final class PatternAutomaton: Sendable {
    /// One compiled glob: the pieces between its `*`s, and what anchors its ends.
    struct Entry: Sendable {
        /// Who the match is reported for (``ChainPatterns`` maps it to a handler and pattern).
        let owner: Int32
        /// Word nodes (≥ 0) or, for a piece of `?` only, minus its length.
        let pieces: [Int32]
        let leadingStar: Bool
        let trailingStar: Bool
    }

    /// Where a cursor goes once its piece before `piece` is found and it may go on from `lower`.
    enum Placement: Equatable {
        /// Matches when the path has at least `length` bytes (nothing left but `*` and `?`s).
        case matchAtLeast(Int32)
        /// Matches when the path has exactly `length` bytes (the last piece ended the pattern).
        case matchExactly(Int32)
        /// Waits for `word` anywhere at or after `lower`.
        case wait(word: Int32, piece: Int32, lower: Int32)
        /// Matches when the path ends with `word`, starting at or after `lower`.
        case end(word: Int32, lower: Int32)
    }

    /// A pattern waiting for piece `piece` (a word) at or after byte `lower`.
    struct Cursor: Sendable {
        let entry: Int32
        let piece: Int32
        let lower: Int32
    }

    /// The patterns a start word begins, placed after it (`lower` absolute: the word starts the path).
    ///
    /// The cursors that wait are also kept by word, ascending by `lower`: a request that starts
    /// the group then reads them from here as their words occur, instead of filing each one
    /// (1,000 `/*/secretN/*` all begin with `/`: filing them cost ~18 µs per request).
    struct Group: Sendable {
        var placements: [(entry: Int32, placement: Placement)] = []
        /// The placements that match at once (nothing left to wait for), apart: a group read in
        /// place settles only these, not a pass over all its patterns.
        var immediates: [(entry: Int32, placement: Placement)] = []
        var waits: [Int32: [Cursor]] = [:]
        var ends: [Int32: [Cursor]] = [:]

        mutating func add(_ entry: Int32, _ placement: Placement) {
            placements.append((entry, placement))
            switch placement {
            case .wait(let word, let piece, let lower):
                waits[word, default: []].append(Cursor(entry: entry, piece: piece, lower: lower))
            case .end(let word, let lower):
                ends[word, default: []].append(Cursor(entry: entry, piece: -1, lower: lower))
            case .matchAtLeast, .matchExactly: immediates.append((entry, placement))
            }
        }

        /// How many cursors `waits` holds, all words together.
        var waitCount = 0

        /// Sorts each word's cursors by `lower`, so the eligible ones are always a prefix.
        mutating func seal() {
            for word in waits.keys { waits[word]?.sort { $0.lower < $1.lower } }
            waitCount = waits.values.reduce(0) { $0 + $1.count }
        }
    }

    let trie: WordTrie
    let entries: [Entry]
    /// By start word node: the index of its group in `groups`, or -1.
    let groupOfNode: [Int32]
    let groups: [Group]
    /// The group of patterns with a leading `*` (or a `?`-only first piece), in `groups`, or
    /// -1: they are placed before the first byte.
    let rootGroup: Int32

    /// Compiles globs whose pieces are each all literal or all `?` (``isRegular(_:)``).
    init(_ globs: [(owner: Int32, glob: Glob)]) {
        var builder = WordTrie.Builder()
        var entries: [Entry] = []
        var startWords: [Int32] = []
        entries.reserveCapacity(globs.count)
        for (owner, glob) in globs {
            var pieces: [Int32] = []
            for (offset, chunk) in glob.chunks.enumerated() {
                if chunk.isAny.isEmpty {
                    let isStart = offset == 0 && !glob.leadingStar
                    pieces.append(builder.insert(chunk.bytes, asFloating: !isStart))
                } else {
                    pieces.append(-Int32(chunk.count))
                }
            }
            startWords.append(!glob.leadingStar && (pieces.first ?? -1) >= 0 ? pieces[0] : -1)
            entries.append(Entry(owner: owner, pieces: pieces, leadingStar: glob.leadingStar, trailingStar: glob.trailingStar))
        }
        let trie = builder.build()
        var groupOfNode = [Int32](repeating: -1, count: trie.nodeCount)
        var groups: [Group] = []
        var rootGroup = Group()
        for (index, entry) in entries.enumerated() {
            let placement: Placement
            let start = startWords[index]
            if start >= 0 {
                placement = Self.place(entry, piece: 1, lower: trie.depth(start), trie: trie)
                if groupOfNode[Int(start)] < 0 {
                    groupOfNode[Int(start)] = Int32(groups.count)
                    groups.append(Group())
                }
                groups[Int(groupOfNode[Int(start)])].add(Int32(index), placement)
            } else {
                // A leading `*`, or a first piece of `?` only: nothing anchors the start.
                placement = Self.place(entry, piece: 0, lower: 0, trie: trie)
                rootGroup.add(Int32(index), placement)
            }
        }
        self.rootGroup = rootGroup.placements.isEmpty ? -1 : Int32(groups.count)
        if !rootGroup.placements.isEmpty { groups.append(rootGroup) }
        for index in groups.indices { groups[index].seal() }
        self.trie = trie
        self.entries = entries
        self.groupOfNode = groupOfNode
        self.groups = groups
    }

    /// Whether the automaton can take the glob: no piece mixes `?` with literal bytes.
    static func isRegular(_ glob: Glob) -> Bool {
        glob.chunks.allSatisfy { $0.isAny.isEmpty || !$0.isAny.contains(false) }
    }

    /// Where `entry` goes from piece `piece` on, given it may continue at byte `lower`: a
    /// function of the pattern alone, so a start word's placements are computed at compile.
    static func place(_ entry: Entry, piece first: Int, lower start: Int32, trie: WordTrie) -> Placement {
        var lower = start
        var piece = first
        let count = entry.pieces.count
        while piece < count {
            let value = entry.pieces[piece]
            let isLast = piece == count - 1
            if value < 0 {
                lower += -value
                piece += 1
                continue
            }
            if isLast && !entry.trailingStar { return .end(word: value, lower: lower) }
            return .wait(word: value, piece: Int32(piece), lower: lower)
        }
        // Past the last piece: the path may go on when a `*` follows, or when the pattern ends
        // in `?`s with a `*` before them (they are then the path's last bytes, anywhere after
        // `lower`); otherwise the pattern has no `*` after its first piece and ends here.
        if entry.trailingStar { return .matchAtLeast(lower) }
        guard let last = entry.pieces.last else { return entry.leadingStar ? .matchAtLeast(lower) : .matchExactly(lower) }
        let starBeforeLast = count >= 2 || entry.leadingStar
        return last < 0 && starBeforeLast ? .matchAtLeast(lower) : .matchExactly(lower)
    }
}
