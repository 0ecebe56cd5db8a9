/// A set of match-form keys (hosts, paths) that stays a short array while it holds few keys
/// and becomes a hashed set past ``limit``.
///
/// Nearly every `match` list holds one to four entries, and a 100k-handler config has as many
/// lists: building a `Set` per list (first insert allocates, the next rehashes) plus a copy of
/// its keys for fast lookups cost ~0.25G instructions at compile. Small lookups compare lengths,
/// then bytes, which beats hashing the key; match forms are ASCII, where byte equality and
/// `String` equality agree (inserts still de-duplicate with `==`, as the set does).
package struct FewKeys: Sendable, Sequence {
    /// Above this many keys hashing wins.
    // Fast twin kept (issue 44): hashing every list instead costs the gate's default case +10.6% instructions.
    static let limit = 4

    /// The keys while there are at most ``limit``, in insertion order.
    private var few: [String] = []
    /// Every key, once there are more than ``limit`` (then `few` is emptied).
    private var many: Set<Substring>?

    /// Adds `key`; false when an equal key is already there.
    @discardableResult
    mutating func insert(_ key: String) -> Bool {
        if many != nil { return many?.insert(Substring(key)).inserted ?? false }
        guard !few.contains(key) else { return false }
        if few.count == Self.limit {
            var set = Set(few.map { Substring($0) })
            set.insert(Substring(key))
            many = set
            few = []
        } else {
            few.append(key)
        }
        return true
    }

    var count: Int { many?.count ?? few.count }
    /// The first key (insertion order while few, the set's order after).
    package var first: Substring? { many?.first ?? few.first.map { Substring($0) } }
    var isEmpty: Bool { count == 0 }

    /// Whether `key` is one of the keys.
    func contains(_ key: Substring) -> Bool {
        if let many { return many.contains(key) }
        // Lengths first, then `==`, which compares the keys' bytes in place (both ASCII, so
        // NFC): `withUTF8` needed a mutable copy of `key`, a retain and a release a lookup.
        // Measured on the base string's view, whose `distance` is inlinable (two offsets
        // subtracted); the `Substring`'s own view measures it through a call, which in the
        // WebAssembly build was half of this lookup (docs/performance.md, h-wasmslice).
        let count = key.base.utf8.distance(from: key.startIndex, to: key.endIndex)
        for candidate in few where candidate.utf8.count == count && candidate == key { return true }
        return false
    }

    package func makeIterator() -> Iterator {
        Iterator(few: few.makeIterator(), many: many?.makeIterator())
    }

    /// The keys as substrings (of the strings they were inserted as).
    package struct Iterator: IteratorProtocol {
        fileprivate var few: IndexingIterator<[String]>
        fileprivate var many: Set<Substring>.Iterator?

        package mutating func next() -> Substring? {
            if many != nil { return many?.next() }
            return few.next().map { Substring($0) }
        }
    }
}
