/// A copy of a set's keys kept while the set is small (most `match` lists hold a handful of
/// hosts or paths), so a lookup compares lengths and then bytes instead of hashing the key.
struct FewKeys: Sendable {
    /// Above this many keys hashing wins (and the copy is dropped, so big sets cost no memory).
    static let limit = 4

    private var keys: [Substring] = []
    private var overflowed = false

    /// Records a key the set just gained.
    mutating func insert(_ key: Substring) {
        guard !overflowed else { return }
        if keys.count == Self.limit {
            overflowed = true
            keys = []
        } else {
            keys.append(key)
        }
    }

    /// Whether `key` is one of the keys, or nil when the set is too big to scan.
    func contains(_ key: Substring) -> Bool? {
        guard !overflowed else { return nil }
        let length = key.utf8.count
        for candidate in keys where candidate.utf8.count == length && candidate.utf8.elementsEqual(key.utf8) {
            return true
        }
        return false
    }
}
