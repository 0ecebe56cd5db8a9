/// A run of a path pattern between two `*`: literal bytes and `?` (any one byte).
///
/// Patterns are matched chunk by chunk, each found at its leftmost place after the previous
/// one (``PathPattern``); finding a chunk must be linear in the path, or a long path against a
/// long chunk costs their product (a greedy matcher that retries the chunk at every byte).
/// So a chunk without `?` is found with Knuth–Morris–Pratt (its failure table is built once,
/// at compile), one with `?` up to 64 bytes long with shift-and (a bit per chunk byte).
/// Longer chunks with `?` (rare) are compared byte by byte at each place: their cost is the
/// path length times the chunk length, which the config, not the request, chooses.
struct GlobChunk: Sendable, Equatable {
    /// The bytes; a `?` position holds 0 (no match-form byte is 0: `%00` stays escaped).
    let bytes: [UInt8]
    /// Whether `bytes[i]` is a `?`; empty when the chunk has none.
    let isAny: [Bool]
    /// KMP failure table (literal chunks only): the length of the longest proper border of `bytes[...i]`.
    private let failure: [Int]
    /// Shift-and masks by byte (`?` chunks of at most 64 bytes only): bit `i` set when `bytes[i]` can be that byte.
    private let masks: [UInt64]

    var count: Int { bytes.count }

    init(bytes: [UInt8], isAny: [Bool]) {
        self.bytes = bytes
        let hasAny = isAny.contains(true)
        self.isAny = hasAny ? isAny : []
        if !hasAny {
            failure = Self.failureTable(bytes)
            masks = []
        } else if bytes.count <= 64 {
            failure = []
            var masks = [UInt64](repeating: 0, count: 256)
            for (offset, byte) in bytes.enumerated() {
                let bit: UInt64 = 1 << UInt64(offset)
                if isAny[offset] {
                    for value in masks.indices { masks[value] |= bit }
                } else {
                    masks[Int(byte)] |= bit
                }
            }
            self.masks = masks
        } else {
            failure = []
            masks = []
        }
    }

    private static func failureTable(_ bytes: [UInt8]) -> [Int] {
        var table = [Int](repeating: 0, count: bytes.count)
        var border = 0
        for index in bytes.indices.dropFirst() {
            while border > 0, bytes[index] != bytes[border] { border = table[border - 1] }
            if bytes[index] == bytes[border] { border += 1 }
            table[index] = border
        }
        return table
    }

    /// Whether the chunk matches `subject` at `start` (the caller checked that it fits).
    func matches(_ subject: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start >= 0, start + bytes.count <= subject.count else { return false }
        if isAny.isEmpty {
            for offset in bytes.indices where subject[start + offset] != bytes[offset] { return false }
        } else {
            for offset in bytes.indices where !isAny[offset] && subject[start + offset] != bytes[offset] { return false }
        }
        return true
    }

    /// The leftmost start in `lower..<upper` where the chunk lies wholly inside `subject[lower..<upper]`, or nil.
    func firstMatch(in subject: UnsafeBufferPointer<UInt8>, from lower: Int, to upper: Int) -> Int? {
        guard lower >= 0, upper <= subject.count, upper - lower >= bytes.count else { return nil }
        if bytes.isEmpty { return lower }
        if isAny.isEmpty { return knuthMorrisPratt(subject, lower, upper) }
        if !masks.isEmpty { return shiftAnd(subject, lower, upper) }
        var start = lower
        while start + bytes.count <= upper {
            if matches(subject, at: start) { return start }
            start += 1
        }
        return nil
    }

    private func knuthMorrisPratt(_ subject: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> Int? {
        var matched = 0
        var index = lower
        while index < upper {
            let byte = subject[index]
            while matched > 0, byte != bytes[matched] { matched = failure[matched - 1] }
            if byte == bytes[matched] { matched += 1 }
            if matched == bytes.count { return index + 1 - bytes.count }
            index += 1
        }
        return nil
    }

    private func shiftAnd(_ subject: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> Int? {
        let last: UInt64 = 1 << UInt64(bytes.count - 1)
        var state: UInt64 = 0
        var index = lower
        while index < upper {
            state = ((state << 1) | 1) & masks[Int(subject[index])]
            if state & last != 0 { return index + 1 - bytes.count }
            index += 1
        }
        return nil
    }
}
