/// Values filed under match-form paths, found for every leading whole-segment part of a
/// request's path in one walk: one hash of each segment, so the cost is linear in the path.
///
/// Looking up each leading sub-path as a key of its own hashes `/a`, `/a/a`, `/a/a/a`, …
/// in full, quadratic in the segments: a 32 KB path of `a/` against 7 `pathPrefixes` cost
/// ~100 ms that way. The trie is flat, one dictionary from (parent node, segment) to node,
/// so filing 100,000 prefixes allocates no node objects.
struct SegmentTrie<Value: Sendable>: Sendable {
    private struct Edge: Hashable, Sendable {
        let parent: Int32
        let segment: Substring
    }

    private var edges: [Edge: Int32] = [:]
    /// Value by node; node 0 is the root path `/`.
    private var values: [Value?] = [nil]

    var isEmpty: Bool { edges.isEmpty && values.first.map { $0 == nil } ?? true }

    mutating func reserveCapacity(_ segments: Int) {
        edges.reserveCapacity(segments)
        values.reserveCapacity(segments + 1)
    }

    /// Changes the value filed under `path` (a match-form path starting with `/`), starting
    /// from `initial` when there is none yet.
    mutating func update(_ path: Substring, initial: Value, _ change: (inout Value) -> Void) {
        var node: Int32 = 0
        Self.forEachSegment(of: path) { segment in
            // Keys copied into strings of their own, so the trie keeps no config text alive.
            let edge = Edge(parent: node, segment: Substring(String(segment)))
            if let next = edges[edge] {
                node = next
            } else {
                let next = Int32(values.count)
                values.append(nil)
                edges[edge] = next
                node = next
            }
            return true
        }
        var value = values[Int(node)] ?? initial
        change(&value)
        values[Int(node)] = value
    }

    /// Calls `visit` with the value of `/` and of each leading whole-segment part of `path`
    /// that has one, shortest first, until `visit` returns true; returns whether it did.
    /// A path that does not start with `/` (opaque) has no leading parts, not even `/`.
    @discardableResult
    func anyLeadingSubpath(of path: Substring, _ visit: (Value) -> Bool) -> Bool {
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        if let root = values[0], visit(root) { return true }
        guard !edges.isEmpty else { return false }
        var node: Int32 = 0
        var found = false
        Self.forEachSegment(of: path) { segment in
            guard let next = edges[Edge(parent: node, segment: segment)] else { return false }
            node = next
            if let value = values[Int(next)], visit(value) {
                found = true
                return false
            }
            return true
        }
        return found
    }

    /// The segments of a path, in order, while `body` returns true (empty segments skipped:
    /// match forms have none, and `/` alone is the root).
    static func forEachSegment(of path: Substring, _ body: (Substring) -> Bool) {
        let utf8 = path.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = path.firstUTF8Index(of: UInt8(ascii: "/"), from: start) ?? utf8.endIndex
            if start < end, !body(path[start..<end]) { return }
            start = end < utf8.endIndex ? utf8.index(after: end) : end
        }
    }
}
