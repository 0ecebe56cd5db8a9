/// The Aho–Corasick automaton under ``PatternAutomaton``: a trie of the patterns' literal
/// pieces with failure links, walked once along a path.
///
/// Edges are stored sparsely (a sorted run of bytes per node; the root has a table of all 256),
/// so memory grows with the pieces' bytes, not 256 words per node. Following failure links
/// costs at most one step back per byte read, so a walk is linear in the path.
///
/// Only *floating* words (pieces that may occur anywhere, after a `*`) are reported at each
/// byte, through ``nextFloating(_:)``; start words (a pattern's first piece, which must begin
/// the path) are seen as the node the walk stands on while it still spells the path's start.
struct WordTrie: Sendable {
    /// Per node: how many bytes spell it.
    private let depths: [Int32]
    private let failure: [Int32]
    /// Per node: the nearest node on its failure chain, itself included, that ends a floating word, or -1.
    private let floatingAt: [Int32]
    /// Per floating-word node: the next floating word on its failure chain, or -1.
    private let floatingNext: [Int32]
    /// Node `n`'s edges are `edgeBytes[edgeStart[n]..<edgeStart[n + 1]]`, ascending, with targets alongside.
    private let edgeStart: [Int32]
    private let edgeBytes: [UInt8]
    private let edgeTargets: [Int32]
    /// The root's edges by byte (0 where there is none: the walk stays at the root).
    private let rootEdges: [Int32]

    var nodeCount: Int { depths.count }

    func depth(_ node: Int32) -> Int32 { depths[Int(node)] }

    /// The node after reading `byte` at `node`.
    @inline(__always)
    func step(_ node: Int32, _ byte: UInt8) -> Int32 {
        var node = node
        while node != 0 {
            if let target = child(node, byte) { return target }
            node = failure[Int(node)]
        }
        return rootEdges[Int(byte)]
    }

    @inline(__always)
    private func child(_ node: Int32, _ byte: UInt8) -> Int32? {
        var lower = Int(edgeStart[Int(node)])
        var upper = Int(edgeStart[Int(node) + 1])
        // Binary search: a node of a policy's pieces has few edges, and never more than 256.
        while lower < upper {
            let middle = (lower + upper) / 2
            let found = edgeBytes[middle]
            if found == byte { return edgeTargets[middle] }
            if found < byte { lower = middle + 1 } else { upper = middle }
        }
        return nil
    }

    /// The longest floating word ending where the walk stands at `node`, or -1.
    @inline(__always)
    func floatingWord(at node: Int32) -> Int32 { floatingAt[Int(node)] }

    /// The next shorter floating word that also ends there, or -1.
    @inline(__always)
    func nextFloating(_ word: Int32) -> Int32 { floatingNext[Int(word)] }

    /// Collects the words, then links them.
    struct Builder {
        private var children: [[(byte: UInt8, node: Int32)]] = [[]]
        private var depths: [Int32] = [0]
        private var isFloating: [Bool] = [false]

        /// The node of `bytes` (added if new); `asFloating` marks it as a word reported anywhere.
        mutating func insert(_ bytes: [UInt8], asFloating: Bool) -> Int32 {
            var node = 0
            for byte in bytes {
                if let next = children[node].first(where: { $0.byte == byte }) {
                    node = Int(next.node)
                } else {
                    let added = Int32(depths.count)
                    children[node].append((byte, added))
                    children.append([])
                    depths.append(depths[node] + 1)
                    isFloating.append(false)
                    node = Int(added)
                }
            }
            if asFloating { isFloating[node] = true }
            return Int32(node)
        }

        /// Links failure and output chains breadth first (a node's failure is shallower, so set before it).
        func build() -> WordTrie {
            let count = depths.count
            var edgeStart = [Int32](repeating: 0, count: count + 1)
            var edgeBytes: [UInt8] = []
            var edgeTargets: [Int32] = []
            var rootEdges = [Int32](repeating: 0, count: 256)
            for node in 0..<count {
                edgeStart[node] = Int32(edgeBytes.count)
                for (byte, target) in children[node].sorted(by: { $0.byte < $1.byte }) {
                    edgeBytes.append(byte)
                    edgeTargets.append(target)
                    if node == 0 { rootEdges[Int(byte)] = target }
                }
            }
            edgeStart[count] = Int32(edgeBytes.count)
            var failure = [Int32](repeating: 0, count: count)
            var floatingAt = [Int32](repeating: -1, count: count)
            var floatingNext = [Int32](repeating: -1, count: count)
            var queue: [Int32] = children[0].map { $0.node }
            var head = 0
            for node in queue where isFloating[Int(node)] { floatingAt[Int(node)] = node }
            while head < queue.count {
                let node = Int(queue[head])
                head += 1
                for (byte, target) in children[node] {
                    // The failure of `target` is where the failure of `node` goes on `byte`.
                    var fallback = failure[node]
                    var link: Int32 = 0
                    while true {
                        if let next = children[Int(fallback)].first(where: { $0.byte == byte }) {
                            link = next.node
                            break
                        }
                        if fallback == 0 { break }
                        fallback = failure[Int(fallback)]
                    }
                    failure[Int(target)] = link
                    let inherited = floatingAt[Int(link)]
                    if isFloating[Int(target)] {
                        floatingAt[Int(target)] = target
                        floatingNext[Int(target)] = inherited
                    } else {
                        floatingAt[Int(target)] = inherited
                    }
                    queue.append(target)
                }
            }
            return WordTrie(
                depths: depths, failure: failure, floatingAt: floatingAt, floatingNext: floatingNext,
                edgeStart: edgeStart, edgeBytes: edgeBytes, edgeTargets: edgeTargets, rootEdges: rootEdges)
        }
    }
}
