/// A copy of a set's keys kept while the set is small (most `match` lists hold a handful of
/// hosts or paths), so a lookup compares lengths and then bytes instead of hashing the key.
struct FewKeys: Sendable {
    /// Above this many keys hashing wins (and the copy is dropped, so big sets cost no memory).
    static let limit = 4

    /// The keys' UTF-8, so a lookup compares raw bytes (generic `elementsEqual` over string
    /// views cost more than the hashing this replaces).
    private var keys: [[UInt8]] = []
    private var overflowed = false

    /// Records a key the set just gained.
    mutating func insert(_ key: Substring) {
        guard !overflowed else { return }
        if keys.count == Self.limit {
            overflowed = true
            keys = []
        } else {
            keys.append(Array(key.utf8))
        }
    }

    /// Whether `key` is one of the keys, or nil when the set is too big to scan.
    func contains(_ key: Substring) -> Bool? {
        guard !overflowed else { return nil }
        var key = key
        return key.withUTF8 { wanted in
            for candidate in keys where candidate.count == wanted.count {
                if candidate.withUnsafeBufferPointer({ URLParser.bytesEqual($0, wanted) }) { return true }
            }
            return false
        }
    }
}
