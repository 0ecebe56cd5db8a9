/// A sorted table of the generated Unicode data (``PackedTable``) looked up by code point, with
/// an index of where each block of 256 code points starts in it, so a lookup searches the few
/// words of one block instead of the whole table.
///
/// A host's every code point is looked up in several tables (mapping, normalization, validity,
/// bidi class, joining type). By binary search over whole tables that was ~0.1–0.3 µs a code
/// point, and a 32 KiB host whose characters map to six code points each cost 9–11 ms a decision
/// (outside attack round 12, F1); within a block it is a step or two.
struct CodePointTable: Sendable {
    /// The table's words, ascending.
    let words: [UInt32]
    /// How a code point is compared with the words: 0 for tables of code points, 8 for
    /// property tables of `start << 8 | value` words (a code point `c` then compares as
    /// `c << 8 | 0xFF`).
    private let shift: UInt32
    /// For each block of 256 code points, and one past the last: the index of the last word
    /// at or below the block's first code point, -1 when there is none.
    private let blockStarts: [Int32]

    static let blockCount = 0x110000 >> 8

    /// `words` looked up by code point; `propertyTable` for `start << 8 | value` words.
    init(_ words: [UInt32], propertyTable: Bool) {
        self.words = words
        self.shift = propertyTable ? 8 : 0
        var starts = [Int32](repeating: -1, count: Self.blockCount + 1)
        var index = -1
        for block in 0...Self.blockCount {
            let key = Self.key(UInt32(block) << 8, shift: shift)
            while index + 1 < words.count, words[index + 1] <= key { index += 1 }
            starts[block] = Int32(truncatingIfNeeded: index)
        }
        self.blockStarts = starts
    }

    @inline(__always)
    private static func key(_ scalar: UInt32, shift: UInt32) -> UInt32 {
        shift == 0 ? scalar : (scalar << shift) | ((1 << shift) - 1)
    }

    /// The index of the last word at or below `scalar` (as ``PackedTable/lastIndex(atOrBelow:in:)``
    /// over the whole table gives it), or nil when no word is.
    @inline(__always)
    func lastIndex(atOrBelow scalar: UInt32) -> Int? {
        let key = Self.key(scalar, shift: shift)
        let block = Int(scalar >> 8)
        guard block < Self.blockCount else { return PackedTable.lastIndex(atOrBelow: key, in: words) }
        // words[...blockStarts[block]] are at or below the block's first code point, so at or
        // below `scalar`; words past blockStarts[block + 1] are above the next block's first.
        var low = Int(blockStarts[block]) + 1
        var high = Int(blockStarts[block + 1]) + 1
        while low < high {
            let middle = low + (high - low) / 2
            if words[middle] <= key { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// The 8-bit property of `scalar` in a property table (0 before its first range).
    @inline(__always)
    func property(of scalar: UInt32) -> UInt8 {
        guard let index = lastIndex(atOrBelow: scalar) else { return 0 }
        return UInt8(truncatingIfNeeded: words[index])
    }
}
