/// Values filed under match-form paths, found for every leading whole-segment part of a
/// request's path in one walk: one hash of each segment, so the cost is linear in the path.
///
/// Looking up each leading sub-path as a key of its own hashes `/a`, `/a/a`, `/a/a/a`, …
/// in full, quadratic in the segments: a 32 KB path of `a/` against 7 `pathPrefixes` cost
/// ~100 ms that way. The trie is flat, one ``ByteKeyTable`` from (parent node, segment) to
/// node, so filing 100,000 prefixes allocates no node objects: node 0 is the root path `/`,
/// and the edge table's entry `n` leads to node `n + 1`.
struct SegmentTrie<Value: Sendable>: Sendable {
    /// The edges, each holding the value of the node it leads to.
    private var edges = ByteKeyTable<Value?>()
    /// The value of the root path `/`.
    private var rootValue: Value?

    var isEmpty: Bool { edges.isEmpty && rootValue == nil }

    mutating func reserveCapacity(_ segments: Int) {
        edges.reserveCapacity(segments)
    }

    /// Changes the value filed under `path` (a match-form path starting with `/`), starting
    /// from `initial` when there is none yet.
    mutating func update(_ path: Substring, initial: Value, _ change: (inout Value) -> Void) {
        // Keys are copied into the table's bytes, so the trie keeps no config text alive.
        var edge: Int?
        path.withUTF8Bytes { bytes in
            Self.forEachSegment(of: bytes) { segment in
                let parent = edge.map { UInt32($0 + 1) } ?? 0
                edge = edges.insert(segment, context: parent, value: nil)
                return true
            }
        }
        guard let edge else {
            var value = rootValue ?? initial
            change(&value)
            rootValue = value
            return
        }
        var value = edges[edge] ?? initial
        change(&value)
        edges[edge] = value
    }

    /// Calls `visit` with the value of `/` and of each leading whole-segment part of `path`
    /// that has one, shortest first, until `visit` returns true; returns whether it did.
    /// A path that does not start with `/` (opaque) has no leading parts, not even `/`.
    @discardableResult
    func anyLeadingSubpath(of path: UnsafeBufferPointer<UInt8>, _ visit: (Value) -> Bool) -> Bool {
        guard path.first == UInt8(ascii: "/") else { return false }
        if let rootValue, visit(rootValue) { return true }
        guard !edges.isEmpty else { return false }
        // An iterator, not `forEachSegment`'s closure: that captured (in the WebAssembly build,
        // copied) the whole trie on every lookup.
        var node: UInt32 = 0
        var segments = PathSegments(path)
        while let segment = segments.next() {
            guard let next = edges.index(of: segment, context: node) else { return false }
            node = UInt32(next + 1)
            if let value = edges[next], visit(value) { return true }
        }
        return false
    }

    /// The same for a path given as a substring.
    @discardableResult
    func anyLeadingSubpath(of path: Substring, _ visit: (Value) -> Bool) -> Bool {
        path.withUTF8Bytes { anyLeadingSubpath(of: $0, visit) }
    }

    /// The segments of a path, in order, while `body` returns true (``PathSegments``).
    static func forEachSegment(of path: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var segments = PathSegments(path)
        while let segment = segments.next(), body(segment) {}
    }
}

/// The segments of a match-form path, in order, as slices of its bytes: empty segments are
/// skipped (match forms have none, and `/` alone is the root).
struct PathSegments: IteratorProtocol {
    private let path: UnsafeBufferPointer<UInt8>
    private var start = 0

    init(_ path: UnsafeBufferPointer<UInt8>) { self.path = path }

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        while start < path.count {
            var end = start
            while end < path.count, path[end] != UInt8(ascii: "/") { end += 1 }
            defer { start = end + 1 }
            if start < end { return UnsafeBufferPointer(rebasing: path[start..<end]) }
        }
        return nil
    }
}
