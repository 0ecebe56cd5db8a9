/// Unicode simple case folding, ECMAScript's Canonicalize for a regular expression with the `u`
/// and `i` flags: "if CaseFolding.txt provides a simple or common case folding mapping for ch,
/// return the result of applying that mapping to ch; otherwise return ch".
///
/// The table is generated (`scripts/generate-regex-case-folding.js`) rather than derived from
/// Swift's lowercase mappings, which differ from folding for ς, ſ, µ, ẞ, Cherokee and others.
enum RegexCaseFolding {
    /// Scalars with a fold, ascending, and their folds at the same index.
    private static let table: (scalars: [UInt32], folds: [UInt32]) = {
        let words = PackedTable.decode(RegexCaseFoldingTable.pairs)
        var scalars: [UInt32] = []
        var folds: [UInt32] = []
        scalars.reserveCapacity(words.count / 2)
        folds.reserveCapacity(words.count / 2)
        var index = 0
        while index + 1 < words.count {
            scalars.append(words[index])
            folds.append(words[index + 1])
            index += 2
        }
        return (scalars, folds)
    }()

    /// The simple case fold of `scalar` (itself when it has none).
    static func fold(_ scalar: UInt32) -> UInt32 {
        if scalar < 0x80 {
            return (0x41...0x5A).contains(scalar) ? scalar + 0x20 : scalar
        }
        let scalars = table.scalars
        guard let index = PackedTable.lastIndex(atOrBelow: scalar, in: scalars), scalars[index] == scalar else {
            return scalar
        }
        return table.folds[index]
    }

    /// The table inverted: (fold, scalar) pairs ordered by fold, for ``anyScalar(foldingTo:where:)``.
    private static let byFold: [(fold: UInt32, scalar: UInt32)] = {
        let (scalars, folds) = table
        return zip(folds, scalars).map { (fold: $0, scalar: $1) }.sorted { ($0.fold, $0.scalar) < ($1.fold, $1.scalar) }
    }()

    /// Whether some scalar other than `target` whose fold is `target` satisfies `test`.
    static func anyScalar(foldingTo target: UInt32, where test: (UInt32) -> Bool) -> Bool {
        // ASCII folds as ``fold(_:)`` does, whether or not the table lists it.
        if (0x61...0x7A).contains(target) && test(target - 0x20) { return true }
        let pairs = byFold
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if pairs[middle].fold < target { low = middle + 1 } else { high = middle }
        }
        while low < pairs.count, pairs[low].fold == target {
            if test(pairs[low].scalar) { return true }
            low += 1
        }
        return false
    }

    /// Calls `body` with every (scalar, fold) pair whose fold differs from the scalar.
    static func forEachPair(_ body: (UInt32, UInt32) -> Void) {
        let (scalars, folds) = table
        for index in scalars.indices { body(scalars[index], folds[index]) }
    }
}
